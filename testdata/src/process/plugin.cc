// App-v2.app/Contents/Frameworks/libplugin.dylib: a plug-in added in version 2
// of the bundle. Default visibility: the shared templates once more, so one
// more image exports the same weak definitions and binds its own uses of them.
#include "process.h"

proc::TemplateUses plugin_uses = {&proc::Registry<int>::Instance, &proc::Counter<int>,
                                  &proc::Counter<long>};

int PluginRun(int x) {
  plugin_uses.registry().Add(x);
  plugin_uses.counter_int() += x;
  return static_cast<int>(plugin_uses.counter_long()) + x;
}
