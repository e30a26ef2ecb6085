//! What a dyld line says, as data: one [`Message`] per format string weakscan knows, with the
//! byte slices of its fields borrowed from the line (see `docs/logs.md` for every string and
//! the dyld function that prints it).

/// The target of a bind line (`<image/bind#N> -> …`, `JustInTimeLoader::applyFixups` and
/// `PrebuiltLoader::applyFixups`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindTo<'a> {
    /// `-> %p (%s/%s)`: resolved to `address` in image `library` (a leaf name, or `<none>`).
    Resolved {
        /// The bound address.
        address: u64,
        /// Leaf name of the image supplying it, `<none>` when unresolved.
        library: &'a [u8],
        /// The symbol.
        symbol: &'a [u8],
        /// Printed in dyld-1323.3's `<%s/%s>)` form (macOS 26's regular binds).
        angle_form: bool,
    },
    /// `-> %p <%s/variant-table#%d('%s')>)` (dyld-1323.3 function variants).
    Variant {
        /// The bound address.
        address: u64,
        /// Leaf name of the supplying image.
        library: &'a [u8],
        /// The symbol.
        symbol: &'a [u8],
    },
    /// `-> missing-weak-bind (%s)`: a weak bind no image defines (left untouched).
    MissingWeak {
        /// The symbol.
        symbol: &'a [u8],
    },
    /// Prebuilt loaders (OS programs): `-> %p`, `-> %p (%s+0x%08llX)` or `-> missing-weak-bind`;
    /// no symbol name.
    Prebuilt,
}

/// What a `fixup:` line (`Loader::applyFixupsGeneric`) says about one location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixupKind {
    /// `= 0x…` alone: a chained fixup applied in-process (rebase or bind, not told apart).
    Plain,
    /// `<rebase>`.
    Rebase,
    /// `<image/bind#N>`: a regular bind of an opcode image.
    Bind,
    /// `<image/weak-bind#N>`: a weak bind of an opcode image.
    WeakBind,
    /// `(skipping missing weak bind) <image/weak-bind#N>`.
    SkippedWeakBind,
    /// `<function-variant-table#N>`: an internal pointer set to the function variant chosen
    /// (`Loader::applyFunctionVariantFixups`, dyld-1284.13+).
    FunctionVariant,
    /// `<objc-…>` or `<mark …>`: a prebuilt loader's Objective-C fixup
    /// (`PrebuiltLoader::applyObjCFixups` and its neighbours).
    ObjC,
}

/// The kind of a dyld2 bind line (`ImageLoaderMachO::bindLocation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dyld2BindKind {
    /// `bind:`.
    Regular,
    /// `lazy bind:`.
    Lazy,
    /// `weak bind:` (coalescing, `ImageLoader::weakBind`).
    Weak,
}

/// One recognized dyld message. Byte slices borrow from the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message<'a> {
    /// `looking for weak-def symbol '%s':` (dyld-1231.3+; `%s` without quotes in older
    /// builds' cache-builder path): starts one weak-def lookup (`Loader::resolveSymbol`).
    LookupStart {
        /// The symbol looked up.
        symbol: &'a [u8],
    },
    /// `  using '%s' in %s`: the first definition found, by full path.
    Using {
        /// The symbol.
        symbol: &'a [u8],
        /// Full path of the supplying image.
        path: &'a [u8],
    },
    /// `  using non-weak '%s' in %s`: a later non-weak definition replaces a weak one.
    UsingNonWeak {
        /// The symbol.
        symbol: &'a [u8],
        /// Full path of the supplying image.
        path: &'a [u8],
    },
    /// `  found %s in map, using impl from %s` (after 5000 lookups dyld keeps a map).
    FoundInMap {
        /// The symbol.
        symbol: &'a [u8],
        /// Full path of the supplying image.
        path: &'a [u8],
    },
    /// `  did not find unhidden '%s', trying self (%s)`: the requester is hidden from flat
    /// lookup; `image` is its leaf name.
    TryingSelf {
        /// The symbol.
        symbol: &'a [u8],
        /// Leaf name of the requesting image.
        image: &'a [u8],
    },
    /// `  found use of '%s' in cache, need to override: %s`.
    CacheOverride {
        /// The symbol.
        symbol: &'a [u8],
        /// Full path of the shared-cache image whose uses are patched.
        path: &'a [u8],
    },
    /// `<%s/bind#N> -> …`: one bind target of image `image` (leaf name).
    Bind {
        /// Leaf name of the image being fixed up.
        image: &'a [u8],
        /// Its bind-target index (`N`).
        index: u64,
        /// What it was bound to.
        to: BindTo<'a>,
    },
    /// `fixup: *0x… …`: one location.
    Fixup {
        /// The (slid) address of the location.
        address: u64,
        /// What was written.
        kind: FixupKind,
        /// Leaf name of the image, for `Bind`, `WeakBind` and `SkippedWeakBind`.
        image: &'a [u8],
        /// Bind-target index, for `Bind`, `WeakBind` and `SkippedWeakBind`.
        index: u64,
    },
    /// `Setting up kernel page-in linking for %s` (chained fixups applied by the kernel: no
    /// `fixup:` lines follow for this image).
    PageIn {
        /// Full path of the image.
        path: &'a [u8],
    },
    /// A page-in linking range line, `%14.*s (%c%c%c) 0x…->0x… (fileOffset=0x…, size=…KB)`.
    PageInRange,
    /// `__map_with_linking_np(%s) failed, falling back to linking in-process`: the kernel
    /// refused page-in linking, dyld fixed the image up itself.
    PageInFallback {
        /// Full path of the image.
        path: &'a [u8],
    },
    /// `symbol '%s' missing from root that overrides %s. …` (printed without any switch).
    MissingFromRoot {
        /// The symbol.
        symbol: &'a [u8],
    },
    /// `cache patch: %p = 0x%0lX`.
    CachePatch,
    /// `Symbol not found: %s` (the first line of dyld's launch error; the launch failed).
    SymbolNotFound {
        /// The symbol.
        symbol: &'a [u8],
    },
    /// dyld2 `dyld: %sbind: %s:0x%08lX = %s:%s, *0x%08lX = 0x%08lX[ + %ld]`.
    Dyld2Bind {
        /// Regular, lazy or weak.
        kind: Dyld2BindKind,
        /// Leaf name of the image being bound.
        image: &'a [u8],
        /// The location.
        address: u64,
        /// Leaf name of the supplying image, or `<missing weak_import>`.
        library: &'a [u8],
        /// The symbol.
        symbol: &'a [u8],
        /// The addend (0 when not printed).
        addend: i64,
    },
    /// dyld2 `dyld: weak bind, setting all uses of %s in %s to 0x%lX from %s`
    /// (DYLD_PRINT_WEAK_BINDINGS).
    Dyld2WeakSetAllUses {
        /// The symbol.
        symbol: &'a [u8],
        /// Full path of the supplying image.
        from: &'a [u8],
    },
    /// Another dyld2 DYLD_PRINT_WEAK_BINDINGS line (`weak bind start:`, `checking for weak
    /// symbols in %s`, `  found weak %s at 0x%lX in %s`, `weak bind, found %s weak=%d in %s `,
    /// `weak binding all uses of %s to copy from %s`, `weak bind load order …`,
    /// `weak binding adding … to map`, `weak bind end`).
    Dyld2WeakOther,
}
