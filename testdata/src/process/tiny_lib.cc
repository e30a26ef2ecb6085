// The dylibs of the bad-input processes (testdata/process/bad/).
int TinyLib() { return 1; }
