// A dylib that imports libapi's two functions through a two-level bind (the ordinal of its
// LC_LOAD_DYLIB of @rpath/libapi.dylib).
extern "C" {
int libapi_get(int x);
int libapi_put(int x);
int client_run(int x) { return libapi_put(libapi_get(x)); }
}
