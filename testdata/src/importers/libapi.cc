// A dylib with install name @rpath/libapi.dylib exporting two functions, and (client.cc) a
// dylib linked against it: its two-level binds name libapi by ordinal.
extern "C" {
int libapi_get(int x) { return x + 3; }
int libapi_put(int x) { return x - 3; }
}
