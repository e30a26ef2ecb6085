// testdata/process/Lazy/main: a main executable that imports nothing. Its only fixups are the
// rebases of a table of pointers in __DATA_CONST, so a dyld that uses kernel page-in linking
// prints nothing for it but its page-in lines. testdata/add-lazy-load.py then gives it an
// LC_LAZY_LOAD_DYLIB_INFO naming @rpath/liblazy.dylib: a dylib dyld loads on first use, not
// at launch.
extern int (*const lazy_table[])();

namespace {
int One() { return 1; }
int Two() { return 2; }
}  // namespace

int (*const lazy_table[])() = {One, Two};

int main() { return lazy_table[0]() + lazy_table[1](); }
