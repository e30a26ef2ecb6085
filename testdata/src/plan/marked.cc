#include "marked.h"

int marked_seed() { return 3; }
int marked_use() { return mk::ns_count() + own_count() + Marked().count() + Plain<int>::get(); }
