// A -bundle_loader plug-in that uses the executable's beta::Reg<int> without instantiating it:
// it binds add and count by weak lookup (chained fixups, ordinal -3).
#define PLAN_DECLARE_ONLY
#include "beta.h"
int plugin_entry() {
  beta::Reg<int> r;
  r.add(1);
  return r.count();
}
