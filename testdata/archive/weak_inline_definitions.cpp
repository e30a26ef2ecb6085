// An inline function and a function-local static: weak definitions in the object file.
inline int weakscan_archive_counter() {
  static int count = 0;
  return ++count;
}
int weakscan_archive_first() { return weakscan_archive_counter(); }
