#include "t.h"
int plain_b(long x) {
  return (int)(*Registry<long>::registers() + twice(x) + Registry<long>::count) +
         *Registry<int>::registers() + twice((int)x);
}
extern void *const used_b[] = {(void *)&Registry<long>::registers, (void *)&twice<long>,
                               (void *)&Registry<int>::registers, (void *)&twice<int>};
