// The executable of the flags-regression program (testdata/flags/), compiled with
// -fvisibility=hidden in both builds: it calls the three libraries' entry points and
// allocates, so operator new and delete (weak in libSystem.tbd) are weak-bound either way.
#include "alpha.h"
#include "beta.h"
#include "gamma.h"

void* operator new(unsigned long size);
void operator delete(void* p, unsigned long size) noexcept;

int main() {
  beta::Data* d = new beta::Data();
  int r = alpha_a() + alpha_b() + beta_a(d) + beta_b(d) + beta_c(d) + gamma_take();
  delete d;
  return r;
}
