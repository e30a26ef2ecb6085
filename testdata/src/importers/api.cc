// An executable that exports an API to the bundles it loads: three C functions that a native
// addon looks up flat (`-undefined dynamic_lookup`, library ordinal -2) and two C++ functions
// that a plug-in binds through the main executable (`-bundle_loader`, ordinal -1). It also
// instantiates a template with default visibility: api::Slot<int>() and its function-local
// static are weak definitions it exports and weak-binds, so its fix plan has a candidate,
// api.o, whose -fvisibility=hidden would also hide the API the bundles import.
// -DAPI_V2 builds version 2, which hides api::write(int) (visibility("hidden")), as a change
// of visibility flags would: the plug-in that still imports it cannot load.
#ifdef API_V2
#define API_WRITE_VISIBILITY __attribute__((visibility("hidden")))
#else
#define API_WRITE_VISIBILITY
#endif

extern "C" {
int api_open(int flags) { return flags + 1; }
int api_read(int fd) { return fd * 2; }
int api_close(int fd) { return fd - 1; }
// Exported, imported by nobody.
int api_unused(int x) { return x ^ 7; }
}

namespace api {
API_WRITE_VISIBILITY int write(int fd) { return fd + 40; }
int version() { return 2; }

template <typename T>
T& Slot() {
  static T value = T(5);
  return value;
}
}  // namespace api

int main() {
  return api_open(0) + api_read(1) + api_close(2) + api::write(3) + api::version() +
         api::Slot<int>();
}
