// The main executable of testdata/process/App.app: instantiates the shared
// templates (the same weak definitions as libshared_a and libshared_b), calls
// both dylibs, and uses libmissing (weakly linked, not shipped) if present.
#include "process.h"

// A strong (non-weak) replacement of operator new[], one of dyld's
// treat-as-weak names: it makes the executable MH_WEAK_DEFINES by itself, and
// dyld looks the treat-as-weak names up for it at launch.
void* operator new[](unsigned long size) { return operator new(size); }

// From libmissing.dylib, linked with -weak_library: LC_LOAD_WEAK_DYLIB.
int MissingFeature() __attribute__((weak_import));

proc::TemplateUses app_uses = {&proc::Registry<int>::Instance, &proc::Counter<int>,
                               &proc::Counter<long>};
void* app_scratch = nullptr;

int main() {
  app_uses.registry().Add(1);
  app_uses.counter_int() += 2;
  app_uses.counter_long() += 3;
  int total = SharedARun(4) + SharedBRun(5);
  if (&MissingFeature != nullptr) total += MissingFeature();
#ifdef WEAKSCAN_V2
  total += PluginRun(6);  // App-v2.app: the plug-in added in version 2
#endif
  int* scratch = new int[4];
  app_scratch = scratch;
  scratch[0] = total;
  total += scratch[0] + app_uses.registry().count();
  delete[] scratch;
  weakscan_print("app", static_cast<unsigned>(total));
  return 0;
}
