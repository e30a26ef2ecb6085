#include "gamma.h"

int gamma_take() {
  *gam::Pool<int>().take() = 7;
  return *gam::Pool<int>().take() + static_cast<int>(*gam::Pool<char>().take()) +
         gam::Api<long>::version();
}
