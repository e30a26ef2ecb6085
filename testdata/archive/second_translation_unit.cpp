inline int weakscan_archive_counter() {
  static int count = 0;
  return ++count;
}
int weakscan_archive_second() { return weakscan_archive_counter() + 1; }
