// The executable of the last-leaker fixtures (compiled with -fvisibility=hidden).
#include "leak.h"
int main() { return leak::run(); }
