// Mimics ada's (the WHATWG URL parser in Node.js) url_search_params_iter,
// a class template with a static data member: one weak EMPTY per T.
#ifndef WEAKSCAN_ADA_ITER_H
#define WEAKSCAN_ADA_ITER_H

#include "common.h"

namespace ada {

struct string_view {
  const char* data;
  unsigned long size;
};

struct key_value {
  string_view key;
  string_view value;
};

template <typename T>
struct url_search_params_iter {
  static const T EMPTY;

  url_search_params_iter(const T* begin, const T* end) : pos_(begin), end_(end) {}
  bool has_next() const { return pos_ != end_; }
  __attribute__((noinline)) const T& next();

 private:
  const T* pos_;
  const T* end_;
};

template <typename T>
const T url_search_params_iter<T>::EMPTY{};

template <typename T>
const T& url_search_params_iter<T>::next() {
  if (pos_ == end_) return EMPTY;
  return *pos_++;
}

using url_search_params_keys_iter = url_search_params_iter<string_view>;
using url_search_params_entries_iter = url_search_params_iter<key_value>;

}  // namespace ada

#endif  // WEAKSCAN_ADA_ITER_H
