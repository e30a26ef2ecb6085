// The executables of the bad-input processes (testdata/process/bad/): a main
// that uses nothing; the dylibs it links are on the link line.
int main() { return 0; }
