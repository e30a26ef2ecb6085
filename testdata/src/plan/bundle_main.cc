// The executable of the plan's app bundle (compiled with -fvisibility=hidden): it calls the
// non-inline entry points of its static library libgamma.a and of libdelta.dylib only.
int gamma_run();
int delta_run();
int main() { return gamma_run() + delta_run(); }
