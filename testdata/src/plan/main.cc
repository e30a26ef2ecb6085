// The executable of the plan fixtures (compiled with -fvisibility=hidden): it calls only the
// libraries' non-inline functions, so every weak definition is one library's.
#include "alpha.h"
int beta_use();
int main() { return alpha::run() + beta_use(); }
