// libmissing.dylib: linked weakly by App (LC_LOAD_WEAK_DYLIB) but not shipped.
int MissingFeature() { return 42; }
