// A native addon, linked `-bundle -undefined dynamic_lookup` as node-gyp links a `.node`: the
// three API functions it calls are undefined at link time and bound by flat lookup (library
// ordinal -2), resolved at load against the executable that loads it.
extern "C" {
int api_open(int flags);
int api_read(int fd);
int api_close(int fd);

int addon_init(int x) { return api_close(api_read(api_open(x))); }
}
