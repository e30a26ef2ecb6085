#include "t.h"
int plain_a(int x) { return *Registry<int>::registers() + twice(x) + Registry<int>::count; }
// Taking the addresses keeps the instantiations exported (no weak_def_can_be_hidden).
extern void *const used_a[] = {(void *)&Registry<int>::registers, (void *)&twice<int>};
