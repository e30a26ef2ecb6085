// The executable of the compile-flags fixtures (compiled with -fvisibility=hidden): it calls
// only the libraries' non-inline functions, so every weak definition is one library's.
int marked_use();
int inl_use();
int nsl_use();
int main() { return marked_use() + inl_use() + nsl_use(); }
