// A plug-in bundle linked `-bundle -bundle_loader api`: the two C++ API functions it calls are
// bound through the main executable (library ordinal -1, BIND_SPECIAL_DYLIB_MAIN_EXECUTABLE).
namespace api {
int write(int fd);
int version();
}  // namespace api

extern "C" int plugin_init(int fd) { return api::write(fd) + api::version(); }
