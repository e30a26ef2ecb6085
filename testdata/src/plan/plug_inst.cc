// A -bundle_loader plug-in with its own copy of beta::Reg<int>: its weak lookups find the
// executable's first, and its own when the executable hides them (not a load failure).
#include "beta.h"
int plugin_entry() {
  beta::Reg<int> r;
  r.add(1);
  return r.count();
}
