// The executable of the plan's app bundle (compiled with -fvisibility=hidden): it calls the
// non-inline entry points of its static library libgamma.a and of libdelta.dylib, and
// delta::peek<int>, an explicit instantiation only libdelta.dylib defines (weak): the dylib
// supplies it at launch.
int gamma_run();
int delta_run();
namespace delta {
template <class T> T peek(T v);
extern template int peek<int>(int);
} // namespace delta
int main() { return gamma_run() + delta_run() + delta::peek(1); }
