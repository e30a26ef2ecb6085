/*
 * Grouping keys of a C++ name from GNU libiberty's own parse (its component tree), with the
 * printed form from the same parse: one parse per name instead of libiberty's for the text and
 * cpp_demangle's for the structure (which was 80% of the demangling time).
 *
 * cplus_demangle_v3_components (libiberty cp-demint.c) parses a `_Z` name exactly as
 * cplus_demangle_v3_callback does (cplus_demangle_mangled_name, the whole name consumed under
 * DMGL_PARAMS), and cplus_demangle_print_callback prints that tree as c++filt does; the tree is
 * `struct demangle_component` (demangle.h): a name is a chain of QUAL_NAME / LOCAL_NAME nodes,
 * TEMPLATE(name, TEMPLATE_ARGLIST), TYPED_NAME(name, FUNCTION_TYPE(return type, ARGLIST)) for a
 * function, with the special names (vtable, guard variable, thunk …) as unary nodes on top.
 *
 * The keys are the ones the Rust side documents (src/analysis/demangle/mod.rs, docs/names.md):
 * the pattern is the name proper printed with every template-argument list as `<…>` and every
 * parameter list as `(…)`, without return types, after the special name's prefix; the template
 * ends after the first `<…>` of the name proper; a leading component is a namespace candidate
 * when it has neither. The walk below supports the node kinds real names use in the name proper;
 * on any other it gives up (returns 0) and the caller takes the keys from cpp_demangle, as before,
 * so a node kind this walk does not know can never change a key.
 */
#include <string.h>
#include <stdlib.h>
#include "cxxfilt.h"

/* At most this many `::` separators are recorded; a name with more gives up. */
#define WEAKSCAN_MAX_SEPARATORS 64
/* Deepest nesting walked; a deeper name gives up (the walk recurses). */
#define WEAKSCAN_MAX_DEPTH 256

/* Keys as the Rust side reads them (`RawKeys` in src/analysis/demangle/cxxfilt.rs). */
struct weakscan_keys {
  char *buf;           /* the pattern, `cap` bytes of room, not NUL-terminated */
  size_t len;
  size_t cap;
  long name_start;     /* where the name proper starts in the pattern */
  long template_end;   /* end of the first `<…>` of the name proper, -1 if none */
  size_t separators;   /* `::` separators recorded in `ends` */
  unsigned int ends[WEAKSCAN_MAX_SEPARATORS];     /* offset of each `::` */
  unsigned char entity[WEAKSCAN_MAX_SEPARATORS];  /* the component before it had <…> or (…) */
};

struct walk {
  struct weakscan_keys *k;
  int component_entity;  /* the component being written has <…> or (…) */
  jmp_buf full;          /* where a leaf that does not fit abandons its printing */
};

static int put(struct walk *w, const char *s, size_t n) {
  struct weakscan_keys *k = w->k;
  if (n > k->cap - k->len)
    return 0;
  memcpy(k->buf + k->len, s, n);
  k->len += n;
  return 1;
}

static int puts_(struct walk *w, const char *s) { return put(w, s, strlen(s)); }

static int put_num(struct walk *w, long n) {
  char digits[24];
  int i = sizeof digits;
  if (n < 0)
    return 0;
  do {
    digits[--i] = (char)('0' + n % 10);
    n /= 10;
  } while (n > 0);
  return put(w, digits + i, sizeof digits - i);
}

/* A leaf printed by libiberty itself (operators, constructors, destructors): appended. Its text
 * is part of the whole name's, which fit the bound, but the printing is abandoned (longjmp, as in
 * cxxfilt.c) the moment it would not fit, so no leaf can cost more than the bound. */
static void leaf_sink(const char *s, size_t n, void *opaque) {
  struct walk *w = opaque;
  if (!put(w, s, n))
    longjmp(w->full, 1);
}

static int leaf(struct walk *w, struct demangle_component *dc) {
  if (setjmp(w->full))
    return 0;
  return cplus_demangle_print_callback(WEAKSCAN_CXXFILT_FLAGS, dc, leaf_sink, w);
}

static int separator(struct walk *w) {
  struct weakscan_keys *k = w->k;
  if (k->separators == WEAKSCAN_MAX_SEPARATORS)
    return 0;
  k->ends[k->separators] = (unsigned int)k->len;
  k->entity[k->separators] = (unsigned char)w->component_entity;
  k->separators++;
  w->component_entity = 0;
  return put(w, "::", 2);
}

static int name(struct walk *w, struct demangle_component *dc, int depth);
static int encoding(struct walk *w, struct demangle_component *dc, int depth);

/* `(…)` and the qualifiers of a function whose name is `dc` (TYPED_NAME's left), in the order
 * libiberty prints them (d_print_mod: " const", " volatile", " restrict", " &", " &&"). */
static int is_this_qualifier(const struct demangle_component *dc) {
  return dc != NULL && (dc->type == DEMANGLE_COMPONENT_CONST_THIS ||
                        dc->type == DEMANGLE_COMPONENT_VOLATILE_THIS ||
                        dc->type == DEMANGLE_COMPONENT_RESTRICT_THIS ||
                        dc->type == DEMANGLE_COMPONENT_REFERENCE_THIS ||
                        dc->type == DEMANGLE_COMPONENT_RVALUE_REFERENCE_THIS);
}

/* Moves `*dc` past its chain of `this` qualifiers, appending them to `quals` (room for 8, `*n`
 * used); 0 if there are more. */
static int strip_qualifiers(struct demangle_component **dc, struct demangle_component **quals,
                            int *n) {
  while (is_this_qualifier(*dc)) {
    if (*n == 8)
      return 0;
    quals[(*n)++] = *dc;
    *dc = (*dc)->u.s_binary.left;
  }
  return 1;
}

static int function(struct walk *w, struct demangle_component *dc,
                    struct demangle_component *type, int depth) {
  struct demangle_component *quals[8];
  int n = 0;
  if (depth > WEAKSCAN_MAX_DEPTH || !strip_qualifiers(&dc, quals, &n))
    return 0;
  if (dc == NULL || type == NULL || type->type != DEMANGLE_COMPONENT_FUNCTION_TYPE)
    return 0;
  if (dc->type == DEMANGLE_COMPONENT_LOCAL_NAME && is_this_qualifier(dc->u.s_binary.right)) {
    /* A member function of a class local to a function (a lambda's `operator() const`): the
     * qualifiers sit on the local name's right and apply to this function (the TYPED_NAME case
     * of d_print_comp_inner). Both kinds at once: given up (their order is not read here). */
    struct demangle_component *local = dc->u.s_binary.right;
    if (n > 0 || !strip_qualifiers(&local, quals, &n))
      return 0;
    if (local == NULL || local->type == DEMANGLE_COMPONENT_DEFAULT_ARG ||
        !encoding(w, dc->u.s_binary.left, depth + 1) || !separator(w) ||
        !name(w, local, depth + 1))
      return 0;
  } else if (!name(w, dc, depth + 1)) {
    return 0;
  }
  if (!puts_(w, "(\xe2\x80\xa6)"))
    return 0;
  w->component_entity = 1;
  while (n > 0) {
    const char *q;
    switch (quals[--n]->type) {
    case DEMANGLE_COMPONENT_CONST_THIS: q = " const"; break;
    case DEMANGLE_COMPONENT_VOLATILE_THIS: q = " volatile"; break;
    case DEMANGLE_COMPONENT_RESTRICT_THIS: q = " restrict"; break;
    case DEMANGLE_COMPONENT_REFERENCE_THIS: q = " &"; break;
    default: q = " &&"; break;
    }
    if (!puts_(w, q))
      return 0;
  }
  return 1;
}

/* An encoding inside a local name (the enclosing function), or a data name. */
static int encoding(struct walk *w, struct demangle_component *dc, int depth) {
  if (dc != NULL && dc->type == DEMANGLE_COMPONENT_TYPED_NAME)
    return function(w, dc->u.s_binary.left, dc->u.s_binary.right, depth);
  return name(w, dc, depth);
}

static int name(struct walk *w, struct demangle_component *dc, int depth) {
  struct weakscan_keys *k = w->k;
  if (dc == NULL || depth > WEAKSCAN_MAX_DEPTH)
    return 0;
  switch (dc->type) {
  case DEMANGLE_COMPONENT_NAME:
    return put(w, dc->u.s_name.s, (size_t)dc->u.s_name.len);
  case DEMANGLE_COMPONENT_QUAL_NAME:
    return name(w, dc->u.s_binary.left, depth + 1) && separator(w) &&
           name(w, dc->u.s_binary.right, depth + 1);
  case DEMANGLE_COMPONENT_LOCAL_NAME:
    if (dc->u.s_binary.right == NULL ||
        dc->u.s_binary.right->type == DEMANGLE_COMPONENT_DEFAULT_ARG)
      return 0;
    return encoding(w, dc->u.s_binary.left, depth + 1) && separator(w) &&
           name(w, dc->u.s_binary.right, depth + 1);
  case DEMANGLE_COMPONENT_TEMPLATE:
    if (!name(w, dc->u.s_binary.left, depth + 1))
      return 0;
    if (k->len > 0 && k->buf[k->len - 1] == '<')
      return 0; /* `operator<` with template arguments: printed with a space; left to cpp_demangle */
    if (!puts_(w, "<\xe2\x80\xa6>"))
      return 0;
    w->component_entity = 1;
    if (k->template_end < 0)
      k->template_end = (long)k->len;
    return 1;
  case DEMANGLE_COMPONENT_CTOR:
  case DEMANGLE_COMPONENT_DTOR:
  case DEMANGLE_COMPONENT_OPERATOR:
    return leaf(w, dc);
  case DEMANGLE_COMPONENT_SUB_STD:
    /* `std`, or a standard abbreviation; one spelled with template arguments (`Ss` under
     * DMGL_VERBOSE) gives up. */
    if (memchr(dc->u.s_string.string, '<', (size_t)dc->u.s_string.len) != NULL)
      return 0;
    return put(w, dc->u.s_string.string, (size_t)dc->u.s_string.len);
  case DEMANGLE_COMPONENT_TAGGED_NAME:
    return name(w, dc->u.s_binary.left, depth + 1) && puts_(w, "[abi:") &&
           dc->u.s_binary.right != NULL &&
           dc->u.s_binary.right->type == DEMANGLE_COMPONENT_NAME &&
           name(w, dc->u.s_binary.right, depth + 1) && puts_(w, "]");
  case DEMANGLE_COMPONENT_LAMBDA:
    if (!puts_(w, "{lambda(\xe2\x80\xa6)#") || !put_num(w, (long)dc->u.s_unary_num.num + 1) ||
        !puts_(w, "}"))
      return 0;
    w->component_entity = 1;
    return 1;
  case DEMANGLE_COMPONENT_UNNAMED_TYPE:
    return puts_(w, "{unnamed type#") && put_num(w, (long)dc->u.s_number.number + 1) &&
           puts_(w, "}");
  default:
    return 0;
  }
}

/* The prefix libiberty prints before a special name's entity (d_print_comp_inner). */
static const char *special_prefix(enum demangle_component_type t) {
  switch (t) {
  case DEMANGLE_COMPONENT_VTABLE: return "vtable for ";
  case DEMANGLE_COMPONENT_VTT: return "VTT for ";
  case DEMANGLE_COMPONENT_TYPEINFO: return "typeinfo for ";
  case DEMANGLE_COMPONENT_TYPEINFO_NAME: return "typeinfo name for ";
  case DEMANGLE_COMPONENT_TYPEINFO_FN: return "typeinfo fn for ";
  case DEMANGLE_COMPONENT_THUNK: return "non-virtual thunk to ";
  case DEMANGLE_COMPONENT_VIRTUAL_THUNK: return "virtual thunk to ";
  case DEMANGLE_COMPONENT_COVARIANT_THUNK: return "covariant return thunk to ";
  case DEMANGLE_COMPONENT_GUARD: return "guard variable for ";
  case DEMANGLE_COMPONENT_TLS_INIT: return "TLS init function for ";
  case DEMANGLE_COMPONENT_TLS_WRAPPER: return "TLS wrapper function for ";
  case DEMANGLE_COMPONENT_TPARM_OBJ: return "template parameter object for ";
  default: return NULL;
  }
}

/* The keys of the whole name `dc`. */
static int top(struct walk *w, struct demangle_component *dc) {
  const char *prefix = special_prefix(dc->type);
  if (prefix != NULL) {
    if (!puts_(w, prefix))
      return 0;
    w->k->name_start = (long)w->k->len;
    dc = dc->u.s_binary.left;
    if (dc == NULL)
      return 0;
    if (dc->type == DEMANGLE_COMPONENT_INITIALIZER_LIST)
      dc = dc->u.s_binary.left; /* a template parameter object: its type */
  }
  if (dc == NULL)
    return 0;
  if (dc->type == DEMANGLE_COMPONENT_TYPED_NAME)
    return function(w, dc->u.s_binary.left, dc->u.s_binary.right, 0);
  return name(w, dc, 0);
}

/*
 * Parses the NUL-terminated `_Z` name once; prints it as c++filt does into `buf` (`cap` bytes,
 * not NUL-terminated) and fills `keys` (its `buf` and `cap` set by the caller). Returns the
 * printed length, -1 if libiberty does not parse the name, -2 if the printed form would be longer
 * than `cap`; `*have_keys` is 1 when `keys` holds the keys, 0 when the walk gave up.
 * The caller tries legacy Rust names (weakscan_cxxfilt) first.
 */
long weakscan_cxxfilt_keys(const char *mangled, char *buf, size_t cap, struct weakscan_keys *keys,
                           int *have_keys) {
  void *mem = NULL;
  struct demangle_component *dc;
  struct weakscan_sink out;
  struct walk w;
  long result;

  *have_keys = 0;
  /* An `sr` unresolved name (only in expressions) is parsed according to
   * `d_info.unresolved_name_state`: d_demangle_callback sets it, then parses again the other way
   * if the first parse fails; cplus_demangle_v3_components does neither, and
   * cplus_demangle_init_info leaves the field uninitialized (libiberty 20230104), so its parse
   * of such a name depends on stack garbage. A name holding the bytes `sr` anywhere is
   * therefore printed by c++filt's own call and its keys are left to the caller; without them
   * the field is never read, and the parse is d_demangle_callback's. */
  if (strstr(mangled, "sr") != NULL)
    return weakscan_cxxfilt(mangled, buf, cap);
  /* d_demangle_callback refuses a name longer than half the recursion limit (without
   * DMGL_NO_RECURSE_LIMIT, which c++filt does not pass), so c++filt prints it raw;
   * cplus_demangle_v3_components has no such check, and its parser recurses once per byte of a
   * chain such as `PPP…`. Such a name takes c++filt's own call, which refuses it. */
  if (strlen(mangled) > DEMANGLE_RECURSION_LIMIT / 2)
    return weakscan_cxxfilt(mangled, buf, cap);
  dc = cplus_demangle_v3_components(mangled, WEAKSCAN_CXXFILT_FLAGS, &mem);
  if (dc == NULL) {
    free(mem);
    return -1;
  }
  out.buf = buf;
  out.len = 0;
  out.cap = cap;
  if (setjmp(out.full)) {
    free(mem);
    return -2;
  }
  if (!cplus_demangle_print_callback(WEAKSCAN_CXXFILT_FLAGS, dc, weakscan_write, &out)) {
    free(mem);
    return -1;
  }
  result = (long)out.len;
  keys->len = 0;
  keys->name_start = 0;
  keys->template_end = -1;
  keys->separators = 0;
  w.k = keys;
  w.component_entity = 0;
  *have_keys = top(&w, dc);
  free(mem);
  return result;
}
