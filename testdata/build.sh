#!/usr/bin/env bash
# Builds the weakscan Mach-O fixtures into testdata/bin/ and writes
# testdata/expected.tsv (reference counts computed with llvm-objdump only), and
# the multi-image process fixtures into testdata/process/ (see
# testdata/process/expected.md).
#
# Usage: bash testdata/build.sh        (from any directory)
#
# Needs clang++-22, ld64.lld-22, llvm-objdump-22 and llvm-lipo-22 (Debian
# packages clang-22, lld-22, llvm-22). No macOS SDK: the sources include no
# system headers and link against the hand-written sdk/usr/lib/libSystem.tbd.
# The output is deterministic: running it twice gives byte-identical files.
set -euo pipefail
export LC_ALL=C

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$HERE/src"
SDK="$HERE/sdk"
BIN="$HERE/bin"
TSV="$HERE/expected.tsv"

die() {
  echo "build.sh: error: $*" >&2
  exit 1
}

# find_tool NAME FALLBACK: print the path of NAME (or of FALLBACK), else die.
find_tool() {
  if command -v "$1" >/dev/null 2>&1; then
    command -v "$1"
  elif [[ -x "$2" ]]; then
    echo "$2"
  else
    die "$1 not found (nor $2); install the Debian packages clang-22 lld-22 llvm-22"
  fi
}

CXX="$(find_tool clang++-22 /usr/lib/llvm-22/bin/clang++)"
LD="$(find_tool ld64.lld-22 /usr/lib/llvm-22/bin/ld64.lld)"
OBJDUMP="$(find_tool llvm-objdump-22 /usr/lib/llvm-22/bin/llvm-objdump)"
LIPO="$(find_tool llvm-lipo-22 /usr/lib/llvm-22/bin/llvm-lipo)"
AR="$(find_tool llvm-ar-22 /usr/lib/llvm-22/bin/llvm-ar)"
STRIP="$(find_tool llvm-strip-22 /usr/lib/llvm-22/bin/llvm-strip)"
DSYMUTIL="$(find_tool dsymutil-22 /usr/lib/llvm-22/bin/dsymutil)"
NM="$(find_tool llvm-nm-22 /usr/lib/llvm-22/bin/llvm-nm)"
# The N_OSO entries' n_value is the object's modification time unless this is set (ld64 and
# lld): fixtures must not depend on when they were built.
export ZERO_AR_DATE=1

"$CXX" --version | head -n1 | grep -q 'version 22\.' ||
  die "$CXX is not clang 22: $("$CXX" --version | head -n1)"
"$LD" --version | grep -q 'LLD 22\.' ||
  die "$LD is not LLD 22: $("$LD" --version | head -n1)"

echo "clang: $("$CXX" --version | head -n1)"
echo "lld:   $("$LD" --version | head -n1)"
echo "llvm:  $("$OBJDUMP" --version | grep -m1 'LLVM version' | sed 's/^ *//')"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
OUT="$WORK/bin"
mkdir -p "$OUT"

# -g: DWARF in the objects, so ld64.lld writes the debug map (N_SO/N_OSO stabs) that weakscan
# attributes symbols with. Source paths are recorded as /weakscan/testdata/src/….
CXXFLAGS=(-std=c++17 -O2 -nostdinc++ -nostdlib -fno-exceptions -fno-rtti
          -fno-stack-protector -Wall -Wextra -g
          "-ffile-prefix-map=$HERE=/weakscan/testdata" -fdebug-compilation-dir=/weakscan/testdata)
HIDDEN_FLAGS=(-fvisibility=hidden -fvisibility-inlines-hidden)

# compile OBJDIR ARCH MIN VIS VERSION SOURCE...
# VERSION: v1, v2 (-DWEAKSCAN_V2: 3x the descriptors) or nooverride (v1
# without the strong operator new[]/delete[] of main.cc).
compile() {
  local objdir=$1 arch=$2 min=$3 vis=$4 version=$5
  shift 5
  local flags=("${CXXFLAGS[@]}")
  [[ $vis == hidden ]] && flags+=("${HIDDEN_FLAGS[@]}")
  [[ $version == v2 ]] && flags+=(-DWEAKSCAN_V2)
  [[ $version == nooverride ]] && flags+=(-DWEAKSCAN_NO_STRONG_OVERRIDE)
  mkdir -p "$objdir"
  local src
  for src in "$@"; do
    "$CXX" -target "$arch-apple-macos$min" "${flags[@]}" \
      -c "$SRC/$src.cc" -o "$objdir/$src.o"
  done
}

# link_flags ARCH FIXUPS: print the ld64.lld arguments for one arch/fixups.
# opcodes = LC_DYLD_INFO_ONLY (macOS 11), chained = LC_DYLD_CHAINED_FIXUPS (12).
min_for() { [[ $1 == opcodes ]] && echo 11.0 || echo 12.0; }
link() {
  local out=$1 arch=$2 fixups=$3
  shift 3
  local min fixflag
  min="$(min_for "$fixups")"
  [[ $fixups == opcodes ]] && fixflag=-no_fixup_chains || fixflag=-fixup_chains
  # -oso_prefix: N_OSO paths relative to the build directory, not the random $WORK.
  "$LD" -arch "$arch" -platform_version macos "$min" "$min" "$fixflag" \
    -oso_prefix "$WORK/" -syslibroot "$SDK" -lSystem "$@" -o "$out"
}

# build_app NAME VERSION VIS FIXUPS ARCH
build_app() {
  local name=$1 version=$2 vis=$3 fixups=$4 arch=$5
  local objdir="$WORK/obj/$name" min
  min="$(min_for "$fixups")"
  compile "$objdir" "$arch" "$min" "$vis" "$version" main descriptors_a descriptors_b
  link "$OUT/$name" "$arch" "$fixups" \
    "$objdir/main.o" "$objdir/descriptors_a.o" "$objdir/descriptors_b.o"
}

# build_lib FIXUPS ARCH -> libweak-FIXUPS-ARCH.dylib
build_lib() {
  local fixups=$1 arch=$2 name="libweak-$1-$2.dylib"
  local objdir="$WORK/obj/$name" min
  min="$(min_for "$fixups")"
  compile "$objdir" "$arch" "$min" default v1 libweak
  link "$OUT/$name" "$arch" "$fixups" -dylib -install_name @rpath/libweak.dylib \
    "$objdir/libweak.o"
}

# build_uselib FIXUPS ARCH -> app-uselib-default-FIXUPS-ARCH, linked against
# libweak-FIXUPS-ARCH.dylib.
build_uselib() {
  local fixups=$1 arch=$2 name="app-uselib-default-$1-$2"
  local objdir="$WORK/obj/$name" min
  min="$(min_for "$fixups")"
  compile "$objdir" "$arch" "$min" default v1 uselib
  link "$OUT/$name" "$arch" "$fixups" -rpath @executable_path \
    "$objdir/uselib.o" "$OUT/libweak-$fixups-$arch.dylib"
}

# Fix-plan fixtures (testdata/plan/, sources testdata/src/plan/; tests/fix_plan_rebuilt.rs):
# programs linked from static libraries, and each candidate of weakscan's fix plan rebuilt with
# each flag and relinked, to hold the plan's predictions to the real thing. -O0, so that every
# inline function used is emitted. Names: PROGRAM-FIXUPS-ARCH (the base build), and
# PROGRAM-FIXUPS-ARCH.LIBRARY.FLAG with FLAG `hidden` (-fvisibility=hidden) or `inlines`
# (-fvisibility-inlines-hidden, to which clang's Darwin driver adds
# -fvisibility-inlines-hidden-static-local-var) on LIBRARY's objects only.
#   app      main.o (hidden) + libalpha.a + libbeta.a; arm64, chained fixups. Both libraries
#            instantiate core::Registry<int> (core.h): app-chained-arm64.libalpha+libbeta.hidden
#            hides the two together, and obj/ holds the objects the debug maps of the base build
#            and of app-chained-arm64.libalpha.hidden name (at their N_OSO paths: scanned from
#            testdata/plan, or with --objects)
#   solo     main.o (hidden) + libleak.a, the last leaker; arm64 chained and x86_64 opcodes
#   plug_ref.bundle, plug_inst.bundle  -bundle -bundle_loader app-chained-arm64: beta::Reg<int>
#            bound by weak lookup, declared only / instantiated too
#            (their objects are in obj/plan/plugins/)
#   breaks-PLUGIN.LIBRARY.FLAG.txt  the symbols ld64.lld reports undefined when the plug-in
#            is relinked against app-chained-arm64.LIBRARY.FLAG (sorted; empty: it links)
#   flags    flags_main.o (hidden) + libmarked.a (compiled -fvisibility=hidden, with
#            visibility("default") marks) + libinl.a (compiled -fvisibility-inlines-hidden) +
#            libnsl.a (compiled -fno-visibility-inlines-hidden-static-local-var); arm64,
#            chained fixups. Each rebuild keeps the library's own flags and adds FLAG;
#            flags-compile_commands.json is the base build's compile database, obj/ holds its
#            objects
PLAN="$WORK/plan"
plan_flag() {
  case $1 in
    default) ;;
    hidden) echo -fvisibility=hidden ;;
    inlines) echo -fvisibility-inlines-hidden ;;
  esac
}
# plan_obj OBJDIR ARCH MIN FLAG SOURCE: one object of the plan fixtures.
plan_obj() {
  local objdir=$1 arch=$2 min=$3 flag=$4 src=$5 f
  f="$(plan_flag "$flag")"
  mkdir -p "$objdir"
  # shellcheck disable=SC2086 # $f is one flag or none
  "$CXX" -target "$arch-apple-macos$min" "${CXXFLAGS[@]}" -O0 $f \
    -c "$SRC/plan/$src.cc" -o "$objdir/$src.o"
}
# plan_lib OBJDIR ARCH MIN FLAG NAME: libNAME.a of NAME.o.
plan_lib() {
  local objdir=$1/$5-$4
  plan_obj "$objdir" "$2" "$3" "$4" "$5"
  rm -f "$objdir/lib$5.a"
  "$AR" rcs "$objdir/lib$5.a" "$objdir/$5.o"
}
# plan_link OUT OBJDIR ARCH FIXUPS MAIN LIB FLAG LIBS...: MAIN.o and the libraries LIBS, LIB
# built with FLAG and the others with default visibility.
plan_link() {
  local out=$1 o=$2 arch=$3 fixups=$4 main=$5 lib=$6 flag=$7 l libs=()
  shift 7
  for l in "$@"; do
    if [[ $l == "$lib" ]]; then libs+=("$o/$l-$flag/lib$l.a"); else libs+=("$o/$l-default/lib$l.a"); fi
  done
  link "$out" "$arch" "$fixups" "$o/$main.o" "${libs[@]}"
}
# plan_program NAME FIXUPS ARCH MAIN LIBS...: NAME-FIXUPS-ARCH and its rebuilds.
plan_program() {
  local name=$1 fixups=$2 arch=$3 main=$4 o="$WORK/obj/plan/$1-$2-$3" min lib flag
  shift 4
  min="$(min_for "$fixups")"
  plan_obj "$o" "$arch" "$min" hidden "$main"
  for lib in "$@"; do
    for flag in default hidden inlines; do
      plan_lib "$o" "$arch" "$min" "$flag" "$lib"
    done
  done
  plan_link "$PLAN/$name-$fixups-$arch" "$o" "$arch" "$fixups" "$main" none default "$@"
  for lib in "$@"; do
    for flag in hidden inlines; do
      plan_link "$PLAN/$name-$fixups-$arch.lib$lib.$flag" "$o" "$arch" "$fixups" "$main" \
        "$lib" "$flag" "$@"
    done
  done
}
# The compile flags each library of the flags program is built with (PLAN_BASE_<lib>).
PLAN_BASE_marked=-fvisibility=hidden
PLAN_BASE_inl=-fvisibility-inlines-hidden
PLAN_BASE_nsl=-fno-visibility-inlines-hidden-static-local-var
# build_plan_flags: flags-chained-arm64, its rebuilds and its compile database.
build_plan_flags() {
  local o="$WORK/obj/plan/flags-chained-arm64" min lib flag base f d
  min="$(min_for chained)"
  plan_obj "$o" arm64 "$min" hidden flags_main
  for lib in marked inl nsl; do
    base="PLAN_BASE_$lib"
    for flag in default hidden inlines; do
      d="$o/$lib-$flag"
      f="$(plan_flag "$flag")"
      mkdir -p "$d"
      # shellcheck disable=SC2086 # $f is one flag or none
      "$CXX" -target "arm64-apple-macos$min" "${CXXFLAGS[@]}" -O0 "${!base}" $f \
        -c "$SRC/plan/$lib.cc" -o "$d/$lib.o"
      rm -f "$d/lib$lib.a"
      "$AR" rcs "$d/lib$lib.a" "$d/$lib.o"
    done
  done
  plan_link "$PLAN/flags-chained-arm64" "$o" arm64 chained flags_main none default marked inl nsl
  for lib in marked inl nsl; do
    for flag in hidden inlines; do
      plan_link "$PLAN/flags-chained-arm64.lib$lib.$flag" "$o" arm64 chained flags_main \
        "$lib" "$flag" marked inl nsl
    done
  done
  for f in flags_main.o marked-default/libmarked.a inl-default/libinl.a nsl-default/libnsl.a; do
    mkdir -p "$(dirname "$PLAN/obj/plan/flags-chained-arm64/$f")"
    cp "$o/$f" "$PLAN/obj/plan/flags-chained-arm64/$f"
  done
  # The base build's compile database, as CMake writes one: paths as the debug map records
  # them (-ffile-prefix-map), a `command` string for main, `arguments` for the libraries.
  local cmd="clang++ -target arm64-apple-macos$min -std=c++17 -O0 -g"
  {
    echo "["
    echo "  {\"directory\": \"/weakscan/testdata\", \"file\": \"src/plan/flags_main.cc\","
    echo "   \"command\": \"$cmd -fvisibility=hidden -c src/plan/flags_main.cc -o obj/plan/flags-chained-arm64/flags_main.o\"},"
    for lib in marked inl nsl; do
      base="PLAN_BASE_$lib"
      echo "  {\"directory\": \"/weakscan/testdata\", \"file\": \"src/plan/$lib.cc\","
      echo "   \"arguments\": [\"clang++\", \"-target\", \"arm64-apple-macos$min\", \"${!base}\", \"-c\","
      echo "                 \"src/plan/$lib.cc\", \"-o\", \"obj/plan/flags-chained-arm64/$lib-default/$lib.o\"]}$([[ $lib == nsl ]] || echo ,)"
    done
    echo "]"
  } >"$PLAN/flags-compile_commands.json"
}
build_plan() {
  mkdir -p "$PLAN"
  build_plan_flags
  plan_program app chained arm64 main alpha beta
  local a="$WORK/obj/plan/app-chained-arm64"
  link "$PLAN/app-chained-arm64.libalpha+libbeta.hidden" arm64 chained "$a/main.o" \
    "$a/alpha-hidden/libalpha.a" "$a/beta-hidden/libbeta.a"
  for f in main.o alpha-default/libalpha.a alpha-hidden/libalpha.a beta-default/libbeta.a; do
    mkdir -p "$(dirname "$PLAN/obj/plan/app-chained-arm64/$f")"
    cp "$a/$f" "$PLAN/obj/plan/app-chained-arm64/$f"
  done
  plan_program solo chained arm64 solo leak
  plan_program solo opcodes x86_64 solo leak
  local o="$WORK/obj/plan/plugins" app="$PLAN/app-chained-arm64" lib flag out
  plan_obj "$o" arm64 12.0 default plug_ref
  plan_obj "$o" arm64 12.0 default plug_inst
  for p in plug_ref plug_inst; do
    link "$PLAN/$p.bundle" arm64 chained -bundle -bundle_loader "$app" "$o/$p.o"
    # Committed for tests/hide.rs, which relinks the plug-ins when ld64.lld-22 is installed.
    mkdir -p "$PLAN/obj/plan/plugins"
    cp "$o/$p.o" "$PLAN/obj/plan/plugins/$p.o"
  done
  for p in plug_ref plug_inst; do
    for lib in alpha beta; do
      for flag in hidden inlines; do
        out="$PLAN/breaks-$p.lib$lib.$flag.txt"
        if link "$WORK/$p.relinked" arm64 chained -bundle -bundle_loader \
          "$app.lib$lib.$flag" "$o/$p.o" 2>"$WORK/relink.err"; then
          : >"$out"
        else
          sed -n 's/^.*undefined symbol: \(.*\)$/\1/p' "$WORK/relink.err" |
            LC_ALL=C sort -u >"$out"
        fi
      done
    done
  done
  build_plan_bundle
}
# Link-time symbol lists (testdata/hide/; tests/hide.rs): the lists `weakscan hide` emits for
# fixtures of plan/ and process/, and each program relinked from the same objects with its
# list, nothing recompiled. A list is written from the fixture's own directory to stdout, so its
# head names the files as the tests name them. weakscan is the debug build of this checkout
# (`cargo build`), or $WEAKSCAN.
#   app-chained-arm64.unexported.txt   every weak definition but what plug_ref.bundle and
#            plug_inst.bundle bind or share (--importer); .unexported: the app relinked with it
#   app-chained-arm64.all.txt   the same list without --importer; breaks-plug_ref.all.txt and
#            breaks-plug_inst.all.txt: what ld64.lld reports undefined relinking each plug-in
#            against the app relinked with it (sorted; empty: it links)
#   app-chained-arm64.exported.txt   the allow list of the first (--exported); .exported
#   app-chained-arm64.libalpha.unexported.txt   --library libalpha.a; .libalpha.unexported
#   solo-chained-arm64.unexported.txt, solo-opcodes-x86_64.unexported.txt   the last leaker's
#            every weak definition: the relinked programs lose MH_WEAK_DEFINES
#   Bundle.libdelta.unexported.txt   `hide Bundle.app --image Contents/Frameworks/libdelta.dylib`:
#            what the executable shares or binds stays; Bundle.libdelta.unexported.app: the dylib
#            relinked with it and the executable relinked against that dylib
#   App.libshared_a.unexported.txt   `hide App.app --image Contents/Frameworks/libshared_a.dylib`
#            (process/App.app, whose images share the singleton proc::Registry<int>::Instance());
#            App.libshared_a.unexported.app: App.app with libshared_a.dylib relinked with it
HIDE="$WORK/hide"
build_hide() {
  local w=${WEAKSCAN:-} a="$WORK/obj/plan/app-chained-arm64" o="$WORK/obj/plan/plugins" p s
  if [[ -z $w ]]; then
    cargo build --quiet --manifest-path "$HERE/../Cargo.toml"
    w="$HERE/../target/debug/weakscan"
  fi
  mkdir -p "$HIDE"
  local app=("$a/main.o" "$a/alpha-default/libalpha.a" "$a/beta-default/libbeta.a")
  local imp=(--importer plug_ref.bundle --importer plug_inst.bundle)
  (cd "$PLAN" && "$w" hide app-chained-arm64 --objects obj "${imp[@]}") \
    >"$HIDE/app-chained-arm64.unexported.txt"
  (cd "$PLAN" && "$w" hide app-chained-arm64 --objects obj) >"$HIDE/app-chained-arm64.all.txt"
  (cd "$PLAN" && "$w" hide app-chained-arm64 --objects obj "${imp[@]}" --exported) \
    >"$HIDE/app-chained-arm64.exported.txt"
  (cd "$PLAN" && "$w" hide app-chained-arm64 --objects obj --library libalpha.a) \
    >"$HIDE/app-chained-arm64.libalpha.unexported.txt"
  link "$HIDE/app-chained-arm64.unexported" arm64 chained \
    -unexported_symbols_list "$HIDE/app-chained-arm64.unexported.txt" "${app[@]}"
  link "$HIDE/app-chained-arm64.exported" arm64 chained \
    -exported_symbols_list "$HIDE/app-chained-arm64.exported.txt" "${app[@]}"
  link "$HIDE/app-chained-arm64.libalpha.unexported" arm64 chained \
    -unexported_symbols_list "$HIDE/app-chained-arm64.libalpha.unexported.txt" "${app[@]}"
  link "$WORK/app.all" arm64 chained -unexported_symbols_list "$HIDE/app-chained-arm64.all.txt" \
    "${app[@]}"
  for p in plug_ref plug_inst; do
    # The list kept what the plug-in binds: it links against the relinked app.
    link "$WORK/$p.relinked" arm64 chained -bundle -bundle_loader \
      "$HIDE/app-chained-arm64.unexported" "$o/$p.o" ||
      die "$p.bundle does not link against app-chained-arm64.unexported"
    if link "$WORK/$p.relinked" arm64 chained -bundle -bundle_loader "$WORK/app.all" \
      "$o/$p.o" 2>"$WORK/relink.err"; then
      : >"$HIDE/breaks-$p.all.txt"
    else
      sed -n 's/^.*undefined symbol: \(.*\)$/\1/p' "$WORK/relink.err" |
        LC_ALL=C sort -u >"$HIDE/breaks-$p.all.txt"
    fi
  done
  for s in solo-chained-arm64 solo-opcodes-x86_64; do
    (cd "$PLAN" && "$w" hide "$s" --objects obj) >"$HIDE/$s.unexported.txt"
    local arch=${s##*-} fixups=${s#solo-}
    fixups=${fixups%-*}
    link "$HIDE/$s.unexported" "$arch" "$fixups" -unexported_symbols_list \
      "$HIDE/$s.unexported.txt" "$WORK/obj/plan/$s/solo.o" "$WORK/obj/plan/$s/leak-default/libleak.a"
  done
  # Bundle.app: libdelta.dylib relinked with its list, the executable against it.
  local b="$HIDE/Bundle.libdelta.unexported.app" bo="$WORK/obj/plan/bundle"
  (cd "$PLAN" && "$w" hide Bundle.app --image Contents/Frameworks/libdelta.dylib) \
    >"$HIDE/Bundle.libdelta.unexported.txt"
  cp -R "$PLAN/Bundle.app" "$b"
  link "$b/Contents/Frameworks/libdelta.dylib" arm64 chained -dylib \
    -install_name @rpath/libdelta.dylib \
    -unexported_symbols_list "$HIDE/Bundle.libdelta.unexported.txt" "$bo/delta-default/delta.o"
  link "$b/Contents/MacOS/Bundle" arm64 chained -rpath @executable_path/../Frameworks \
    "$bo/bundle_main.o" "$bo/gamma-default/libgamma.a" "$b/Contents/Frameworks/libdelta.dylib"
  # App.app: libshared_a.dylib relinked with its list (as build_process links it).
  local fw="$HIDE/App.libshared_a.unexported.app/Contents/Frameworks"
  (cd "$PROC" && "$w" hide App.app --image Contents/Frameworks/libshared_a.dylib) \
    >"$HIDE/App.libshared_a.unexported.txt"
  cp -R "$PROC/App.app" "$HIDE/App.libshared_a.unexported.app"
  plink "$fw/libshared_a.dylib" -dylib -install_name @rpath/libshared_a.dylib \
    -rpath @loader_path/deps -unexported_symbols_list "$HIDE/App.libshared_a.unexported.txt" \
    "$WORK/obj/process/shared_a.o" "$fw/deps/libdeep.dylib"
}
# plan_bundle NAME GAMMA DELTA: the app bundle NAME.app (arm64, chained fixups) of
# bundle_main.o (hidden) and libgamma.a built with GAMMA, and Contents/Frameworks/libdelta.dylib
# built with DELTA, found by @rpath (@executable_path/../Frameworks). The executable is relinked
# against that dylib; when ld64.lld refuses (the dylib no longer exports what the executable
# binds), the bundle holds the executable linked against the default dylib, as an executable
# shipped unchanged beside the rebuilt dylib would be, and breaks-NAME.txt the symbols
# ld64.lld reported undefined (sorted; empty: it links).
plan_bundle() {
  local app="$PLAN/$1.app" o="$WORK/obj/plan/bundle" exe
  mkdir -p "$app/Contents/MacOS" "$app/Contents/Frameworks"
  link "$app/Contents/Frameworks/libdelta.dylib" arm64 chained -dylib \
    -install_name @rpath/libdelta.dylib "$o/delta-$3/delta.o"
  exe=(arm64 chained -rpath @executable_path/../Frameworks "$o/bundle_main.o"
       "$o/gamma-$2/libgamma.a")
  if link "$app/Contents/MacOS/Bundle" "${exe[@]}" "$app/Contents/Frameworks/libdelta.dylib" \
    2>"$WORK/relink.err"; then
    [[ $1 == Bundle ]] || : >"$PLAN/breaks-$1.txt"
  else
    sed -n 's/^.*undefined symbol: \(.*\)$/\1/p' "$WORK/relink.err" |
      LC_ALL=C sort -u >"$PLAN/breaks-$1.txt"
    link "$app/Contents/MacOS/Bundle" "${exe[@]}" "$PLAN/Bundle.app/Contents/Frameworks/libdelta.dylib"
  fi
  cat >"$app/Contents/Info.plist" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>CFBundleExecutable</key>
	<string>Bundle</string>
	<key>CFBundleIdentifier</key>
	<string>org.weakscan.plan.Bundle</string>
	<key>CFBundleInfoDictionaryVersion</key>
	<string>6.0</string>
	<key>CFBundleName</key>
	<string>Bundle</string>
	<key>CFBundlePackageType</key>
	<string>APPL</string>
	<key>LSMinimumSystemVersion</key>
	<string>12.0</string>
</dict>
</plist>
PLIST
}
# build_plan_bundle: Bundle.app and its rebuilds Bundle.LIBRARY.FLAG.app, one candidate of the
# process plan (libgamma.a of the executable, libdelta.dylib whole) built with FLAG.
build_plan_bundle() {
  local o="$WORK/obj/plan/bundle" flag
  plan_obj "$o" arm64 12.0 hidden bundle_main
  for flag in default hidden inlines; do
    plan_lib "$o" arm64 12.0 "$flag" gamma
    plan_obj "$o/delta-$flag" arm64 12.0 "$flag" delta
  done
  plan_bundle Bundle default default
  for flag in hidden inlines; do
    plan_bundle "Bundle.libgamma.$flag" "$flag" default
    plan_bundle "Bundle.libdelta.$flag" default "$flag"
  done
}
install_plan() {
  rm -rf "$HERE/plan"
  cp -R "$PLAN" "$HERE/plan"
}

# Flags-regression fixtures (testdata/flags/, sources testdata/src/flags/; tests/flags_regression.rs):
# two builds of one program, arm64, chained fixups, -O0, in the same build directory `out` as a
# gyp/ninja build lays it out (objects obj/src/flags/TARGET.SOURCE.o, archives and the executable
# in out/): main.o (-fvisibility=hidden) + libalpha.a (-fvisibility=hidden) + libbeta.a (3
# objects) + libgamma.a (-fvisibility=hidden -fvisibility-inlines-hidden). The old build compiles
# libbeta.a with -fvisibility=hidden, the new one without it. Per build, in flags/old/ and
# flags/new/ (each laid out as that build's out/):
#   app                    the executable (its debug map names out/'s objects and archives)
#   lib{alpha,beta,gamma}.a, obj/src/flags/app.main.o  what it was linked from, at the paths its
#                          debug map names (relative to out/: run in flags/SIDE, or --objects)
#   app-stripped           the same, llvm-strip -S (no debug map: use --map app.map)
#   app.map                ld64.lld's link map
#   compile_commands.json  written by clang itself: each compile given -MJ FILE.o.json, the
#                          fragments (one object and a `,` each) concatenated in build order,
#                          the last `,` dropped and the whole put in `[` … `]` (the usual
#                          recipe: sed -e '1s/^/[/' -e '$s/,$/]/'). Then ONE sed: the
#                          `directory` clang records (the build directory's real path, here a
#                          temp dir) becomes /weakscan/testdata/out; every other path is as
#                          clang wrote it (relative to out/, and argv[0] the clang executable)
#   ninja-n-verbose.txt    the same build's commands as `ninja -n --verbose -C out` prints
#                          them, from testdata/: `ninja: Entering directory `out'`, then each
#                          command run here, `[I/N] ` before it, tools named by their Debian
#                          names (clang++-22, llvm-ar-22, ld64.lld-22)
FLAGSREG="$WORK/flags"
FLAGSREG_CXXFLAGS=(-std=c++17 -O0 -nostdinc++ -nostdlib -fno-exceptions -fno-rtti
                   -fno-stack-protector -Wall -Wextra -g
                   -fdebug-compilation-dir=/weakscan/testdata/out)
# flagsreg_run TOOL NAME ARG...: runs TOOL ARG... in the build directory and writes the command,
# TOOL shown as NAME, to the dump being written (FLAGSREG_STEPS: the commands, in order).
flagsreg_run() {
  local tool=$1 shown=$2
  shift 2
  FLAGSREG_STEPS+=("$shown$(printf ' %q' "$@")")
  "$tool" "$@"
}
# flagsreg_build SIDE BETA_VIS: one build into $FLAGSREG/SIDE, libbeta.a compiled with the
# options BETA_VIS (a word list, maybe empty).
flagsreg_build() {
  local side=$1 beta_vis=$2 tree="$FLAGSREG/tree" dest="$FLAGSREG/$1" lib src o i
  local -a libs=(alpha beta gamma) vis frags=()
  declare -A sources_of=([app]="main" [alpha]="alpha_a alpha_b" [beta]="beta_a beta_b beta_c"
                         [gamma]="gamma")
  declare -A vis_of=([app]="-fvisibility=hidden" [alpha]="-fvisibility=hidden" [beta]="$beta_vis"
                     [gamma]="-fvisibility=hidden -fvisibility-inlines-hidden")
  FLAGSREG_STEPS=()
  rm -rf "$tree/out"
  mkdir -p "$tree/out/obj/src/flags" "$dest"
  (
    cd "$tree/out"
    for lib in app "${libs[@]}"; do
      read -r -a vis <<<"${vis_of[$lib]}"
      for src in ${sources_of[$lib]}; do
        o="obj/src/flags/$lib.$src.o"
        flagsreg_run "$CXX" clang++-22 -target arm64-apple-macos12.0 "${FLAGSREG_CXXFLAGS[@]}" \
          ${vis[@]+"${vis[@]}"} -MJ "$o.json" -c "../src/flags/$src.cc" -o "$o"
        frags+=("$o.json")
      done
    done
    for lib in "${libs[@]}"; do
      local members=()
      for src in ${sources_of[$lib]}; do members+=("obj/src/flags/$lib.$src.o"); done
      flagsreg_run "$AR" llvm-ar-22 rcs --format=darwin "lib$lib.a" "${members[@]}"
    done
    flagsreg_run "$LD" ld64.lld-22 -arch arm64 -platform_version macos 12.0 12.0 -fixup_chains \
      -oso_prefix . -syslibroot ../sdk -lSystem -map app.map obj/src/flags/app.main.o \
      libalpha.a libbeta.a libgamma.a -o app
    cat "${frags[@]}" | sed -e '1s/^/[/' -e '$s/,$/]/' |
      sed "s|\"directory\": \"$(pwd -P)\"|\"directory\": \"/weakscan/testdata/out\"|" \
        >"$dest/compile_commands.json"
    {
      echo "ninja: Entering directory \`out'"
      for i in "${!FLAGSREG_STEPS[@]}"; do
        echo "[$((i + 1))/${#FLAGSREG_STEPS[@]}] ${FLAGSREG_STEPS[$i]}"
      done
    } >"$dest/ninja-n-verbose.txt"
    cp app app.map libalpha.a libbeta.a libgamma.a "$dest/"
    mkdir -p "$dest/obj/src/flags"
    cp obj/src/flags/app.main.o "$dest/obj/src/flags/"
    "$STRIP" -S app -o "$dest/app-stripped"
  )
  grep -q "$WORK" "$dest"/compile_commands.json "$dest"/ninja-n-verbose.txt "$dest"/app.map &&
    die "flags/$side: a path of the temp dir left in the database, dump or map"
  return 0
}
build_flags_regression() {
  local tree="$FLAGSREG/tree" n
  rm -rf "$FLAGSREG"
  mkdir -p "$tree/src"
  cp -R "$SRC/flags" "$tree/src/flags"
  cp -R "$SDK" "$tree/sdk"
  flagsreg_build old "-fvisibility=hidden"
  flagsreg_build new ""
  rm -rf "$tree"
  # Both builds export libgamma.a's API (gam::Api<long>) and nothing else of it; the new one
  # adds libbeta.a's weak definitions, and only those.
  local old new
  old="$("$OBJDUMP" --macho --exports-trie "$FLAGSREG/old/app" | grep weak_def || true)"
  new="$("$OBJDUMP" --macho --exports-trie "$FLAGSREG/new/app" | grep weak_def || true)"
  grep -q N3gam3ApiIlE <<<"$old" || die "flags/old/app does not export gam::Api<long>"
  ! grep -v N3gam3ApiIlE <<<"$old" || die "flags/old/app exports more than gam::Api<long>"
  n="$(grep -v N3gam3ApiIlE <<<"$new" | { grep -vc N4beta || true; })"
  (( n == 0 )) || die "flags/new/app exports $n weak definitions of neither API nor libbeta.a"
  grep -q N4beta <<<"$new" || die "flags/new/app exports no weak definition of libbeta.a"
}
install_flags_regression() {
  rm -rf "$HERE/flags"
  cp -R "$FLAGSREG" "$HERE/flags"
}
if [[ ${1:-} == flags ]]; then
  # `bash testdata/build.sh flags`: the flags-regression fixtures alone.
  build_flags_regression
  install_flags_regression
  echo "flags-regression fixtures in $HERE/flags:"
  (cd "$HERE/flags" && find . -type f | sed "s|^\./||" | LC_ALL=C sort | xargs wc -c | sed "$ d")
  exit 0
fi
if [[ ${1:-} == plan ]]; then
  # `bash testdata/build.sh plan`: the fix-plan fixtures alone.
  build_plan
  install_plan
  echo "plan fixtures in $HERE/plan:"
  (cd "$HERE/plan" && find . -type f | sed "s|^\./||" | LC_ALL=C sort | xargs wc -c | sed "$ d")
  exit 0
fi

echo "building fixtures..."
for vis in default hidden; do
  for fixups in opcodes chained; do
    for arch in arm64 x86_64; do
      build_app "app-$vis-$fixups-$arch" v1 "$vis" "$fixups" "$arch"
    done
  done
done
build_app app-v2-default-chained-x86_64 v2 default chained x86_64
build_app app-v2-default-opcodes-x86_64 v2 default opcodes x86_64
build_app app-v2-default-chained-arm64 v2 default chained arm64
build_app app-v2-default-opcodes-arm64 v2 default opcodes arm64
# Hidden and without strong overrides: no MH_WEAK_DEFINES at all, only
# MH_BINDS_TO_WEAK (the weak binds to operator new/delete remain).
build_app app-nooverride-hidden-opcodes-x86_64 nooverride hidden opcodes x86_64

"$LIPO" -create "$OUT/app-default-chained-arm64" "$OUT/app-default-chained-x86_64" \
  -output "$OUT/app-default-chained-universal"
"$LIPO" -create "$OUT/app-v2-default-chained-arm64" "$OUT/app-v2-default-chained-x86_64" \
  -output "$OUT/app-v2-default-chained-universal"

build_lib opcodes arm64
build_lib chained x86_64
build_uselib opcodes arm64
build_uselib chained x86_64

# Attribution fixtures (testdata/attr/): app-attr-x86_64 links main.o and the hidden
# descriptors_b.o as loose objects and descriptors_a.o from the static library
# libdescriptors_a.a (compiled without -fvisibility=hidden: the leaking "target"), with its
# link map, its dSYM, a stripped copy, and the compile_commands.json of the build.
ATTR="$WORK/attr"
build_attr() {
  local objdir="$WORK/obj/attr"
  mkdir -p "$ATTR" "$objdir/hidden"
  compile "$objdir" x86_64 11.0 default v1 main descriptors_a
  compile "$objdir/hidden" x86_64 11.0 hidden v1 descriptors_b
  (cd "$WORK" && "$AR" rcs --format=darwin obj/attr/libdescriptors_a.a obj/attr/descriptors_a.o)
  # Relative paths from $WORK: the link map names objects as given.
  (cd "$WORK" && link bin/app-attr-x86_64 x86_64 opcodes -map attr/app-attr-x86_64.map \
    obj/attr/main.o obj/attr/libdescriptors_a.a obj/attr/hidden/descriptors_b.o)
  # The map names the SDK by its path on this machine: make it the same everywhere.
  sed -i "s|$HERE/|/weakscan/testdata/|g" "$ATTR/app-attr-x86_64.map"
  (cd "$WORK" && "$DSYMUTIL" bin/app-attr-x86_64 -o attr/app-attr-x86_64.dSYM)
  rm -rf "$ATTR/app-attr-x86_64.dSYM/Contents/Resources/Relocations"
  "$STRIP" -S "$OUT/app-attr-x86_64" -o "$OUT/app-attr-x86_64-stripped"
  cp "$objdir/libdescriptors_a.a" "$ATTR/"
  cp "$objdir/hidden/descriptors_b.o" "$ATTR/descriptors_b-hidden.o"
  cp "$objdir/main.o" "$ATTR/main.o"
  local flags="-std=c++17 -O2 -nostdinc++ -nostdlib -fno-exceptions -fno-rtti -g"
  cat >"$ATTR/compile_commands.json" <<JSON
[
  {"directory": "/weakscan/testdata/out", "file": "../src/main.cc",
   "output": "obj/attr/main.o",
   "command": "clang++ -target x86_64-apple-macos11.0 $flags -c ../src/main.cc -o obj/attr/main.o"},
  {"directory": "/weakscan/testdata/out", "file": "../src/descriptors_a.cc",
   "output": "obj/attr/descriptors_a.o",
   "arguments": ["clang++", "-target", "x86_64-apple-macos11.0", "-fvisibility=default", "-c",
                 "../src/descriptors_a.cc", "-o", "obj/attr/descriptors_a.o"]},
  {"directory": "/weakscan/testdata/out", "file": "../src/descriptors_b.cc",
   "output": "obj/attr/hidden/descriptors_b.o",
   "command": "clang++ -target x86_64-apple-macos11.0 $flags -fvisibility=default -fvisibility=hidden -fvisibility-inlines-hidden -c ../src/descriptors_b.cc -o obj/attr/hidden/descriptors_b.o"}
]
JSON
}
build_attr

# Process fixtures (testdata/process/): a main executable and the dylibs it loads, laid out on
# disk as dyld would find them, from testdata/src/process/. All x86_64, chained fixups (macOS
# 12), default visibility. process/expected.md and process/expected-winners.tsv are written by
# hand (see expected.md) and only checked here; objdump-dylibs.txt is generated.
PROC="$WORK/process"

# plink OUT ARG...: like `link OUT x86_64 chained ARG...`, but with libSystem linked last, so
# that the LC_LOAD_DYLIB order is that of the dylibs in ARG... (lld writes the load commands in
# command-line order, and `link` puts -lSystem first).
plink() {
  local out=$1
  shift
  mkdir -p "$(dirname "$out")"
  "$LD" -arch x86_64 -platform_version macos 12.0 12.0 -fixup_chains \
    -oso_prefix "$WORK/" -syslibroot "$SDK" "$@" -lSystem -o "$out"
}

build_process() {
  local o="$WORK/obj/process"
  local fw="$PROC/App.app/Contents/Frameworks"
  local stubs="$WORK/proc-stubs"
  mkdir -p "$o" "$stubs"
  # Sources src/process/NAME.cc -> obj/process/NAME.o (the N_OSO paths).
  compile "$WORK/obj" x86_64 12.0 default v1 process/app process/shared_a process/shared_b \
    process/deep process/missing process/tiny_main process/tiny_lib

  # --- App.app ---
  plink "$fw/deps/libdeep.dylib" -dylib -install_name @rpath/libdeep.dylib "$o/deep.o"
  # libshared_a finds libdeep only through its own LC_RPATH (@loader_path/deps).
  plink "$fw/libshared_a.dylib" -dylib -install_name @rpath/libshared_a.dylib \
    -rpath @loader_path/deps "$o/shared_a.o" "$fw/deps/libdeep.dylib"
  # libshared_b has no LC_RPATH: at launch its @rpath/libdeep.dylib is the one already loaded
  # for libshared_a (dyld matches @rpath/ load paths against loaded install names first).
  plink "$fw/libshared_b.dylib" -dylib -install_name @rpath/libshared_b.dylib \
    "$o/shared_b.o" "$fw/deps/libdeep.dylib"
  # LC_LOAD_DYLIB records the dependency's install name: App links a copy of libshared_b whose
  # install name is @loader_path/../Frameworks/libshared_b.dylib, and a libmissing that is not
  # shipped.
  plink "$stubs/libshared_b.dylib" -dylib \
    -install_name @loader_path/../Frameworks/libshared_b.dylib \
    "$o/shared_b.o" "$fw/deps/libdeep.dylib"
  plink "$stubs/libmissing.dylib" -dylib -install_name @rpath/libmissing.dylib "$o/missing.o"
  plink "$PROC/App.app/Contents/MacOS/App" -rpath @executable_path/../Frameworks \
    "$o/app.o" "$fw/libshared_a.dylib" "$stubs/libshared_b.dylib" \
    -weak_library "$stubs/libmissing.dylib"
  cat >"$PROC/App.app/Contents/Info.plist" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>CFBundleDevelopmentRegion</key>
	<string>en</string>
	<key>CFBundleExecutable</key>
	<string>App</string>
	<key>CFBundleIdentifier</key>
	<string>org.weakscan.App</string>
	<key>CFBundleInfoDictionaryVersion</key>
	<string>6.0</string>
	<key>CFBundleName</key>
	<string>App</string>
	<key>CFBundlePackageType</key>
	<string>APPL</string>
	<key>CFBundleShortVersionString</key>
	<string>1.0</string>
	<key>CFBundleVersion</key>
	<string>1</string>
	<key>LSMinimumSystemVersion</key>
	<string>12.0</string>
</dict>
</plist>
PLIST

  # --- App-v2.app: version 2 of the same bundle, for `weakscan diff App.app App-v2.app` ---
  # libshared_b is linked with an export list (its entry point only): its weak definitions
  # and weak binds are gone. libdeep is renamed libdeep.2.dylib (install name too): paired
  # with libdeep by its unversioned name. libplugin is new: the shared templates once more.
  local fw2="$PROC/App-v2.app/Contents/Frameworks"
  mkdir -p "$WORK/obj/v2/process"
  compile "$WORK/obj/v2" x86_64 12.0 default v2 process/app process/plugin
  plink "$fw2/deps/libdeep.2.dylib" -dylib -install_name @rpath/libdeep.2.dylib "$o/deep.o"
  plink "$fw2/libshared_a.dylib" -dylib -install_name @rpath/libshared_a.dylib \
    -rpath @loader_path/deps "$o/shared_a.o" "$fw2/deps/libdeep.2.dylib"
  plink "$fw2/libshared_b.dylib" -dylib -install_name @rpath/libshared_b.dylib \
    -exported_symbol __Z10SharedBRuni "$o/shared_b.o" "$fw2/deps/libdeep.2.dylib"
  plink "$fw2/libplugin.dylib" -dylib -install_name @rpath/libplugin.dylib \
    "$WORK/obj/v2/process/plugin.o"
  plink "$PROC/App-v2.app/Contents/MacOS/App" -rpath @executable_path/../Frameworks \
    "$WORK/obj/v2/process/app.o" "$fw2/libshared_a.dylib" "$fw2/libshared_b.dylib" \
    -weak_library "$stubs/libmissing.dylib" "$fw2/libplugin.dylib"
  sed 's|<string>1.0</string>|<string>2.0</string>|; s|<string>1</string>|<string>2</string>|' \
    "$PROC/App.app/Contents/Info.plist" >"$PROC/App-v2.app/Contents/Info.plist"

  # --- Reexport/: a directory whose main links libre.dylib, which re-exports libbase.dylib
  # whole (-reexport_library: an LC_REEXPORT_DYLIB, and nothing of libbase in libre's export
  # trie), and libdelayinit.dylib, whose install name is long enough (25 characters) for
  # tests/reexport.rs to rewrite its LC_LOAD_DYLIB in place as a dylib_use_command ---
  local rx="$PROC/Reexport"
  compile "$WORK/obj" x86_64 12.0 default v1 process/rx_main process/rx_base process/rx_re \
    process/rx_delay
  # An @loader_path install name: ld64.lld finds the re-exported dylib through it when main
  # links libre (it does not expand an @rpath/ one there).
  plink "$rx/libbase.dylib" -dylib -install_name @loader_path/libbase.dylib "$o/rx_base.o"
  plink "$rx/libre.dylib" -dylib -install_name @rpath/libre.dylib "$o/rx_re.o" \
    -reexport_library "$rx/libbase.dylib"
  plink "$rx/libdelayinit.dylib" -dylib -install_name @rpath/libdelayinit.dylib "$o/rx_delay.o"
  plink "$rx/main" -rpath @executable_path "$o/rx_main.o" "$rx/libre.dylib" \
    "$rx/libdelayinit.dylib"

  # --- Lazy/: a main executable that imports nothing (page-in linking is all dyld prints for
  # it) and lazy-loads liblazy.dylib: testdata/add-lazy-load.py writes the
  # LC_LAZY_LOAD_DYLIB_INFO ld64.lld-22 cannot write. liblazy has weak definitions: not loaded
  # at launch, it is not searched ---
  local lz="$PROC/Lazy"
  compile "$WORK/obj" x86_64 12.0 default v1 process/lazy_main process/lazy_lib
  plink "$lz/liblazy.dylib" -dylib -install_name @rpath/liblazy.dylib "$o/lazy_lib.o"
  plink "$lz/main" -rpath @executable_path "$o/lazy_main.o"
  python3 "$HERE/add-lazy-load.py" "$lz/main" @rpath/liblazy.dylib __Z7LazyRuni

  # --- bad/: processes dyld cannot (fully) load, and bundles without a readable Info.plist ---
  local bad="$PROC/bad"
  # cycle: main -> libcycle_a -> libcycle_b -> libcycle_a. libcycle_a is linked twice: first
  # without libcycle_b (only so that libcycle_b can link it), then for real.
  plink "$stubs/cycle/libcycle_a.dylib" -dylib -install_name @loader_path/libcycle_a.dylib \
    "$o/tiny_lib.o"
  plink "$bad/cycle/libcycle_b.dylib" -dylib -install_name @loader_path/libcycle_b.dylib \
    "$o/tiny_lib.o" "$stubs/cycle/libcycle_a.dylib"
  plink "$bad/cycle/libcycle_a.dylib" -dylib -install_name @loader_path/libcycle_a.dylib \
    "$o/tiny_lib.o" "$bad/cycle/libcycle_b.dylib"
  plink "$bad/cycle/main" "$o/tiny_main.o" "$bad/cycle/libcycle_a.dylib"
  # escape: an install name whose `..` leave the directory; the target does not exist.
  plink "$stubs/escape/libx.dylib" -dylib \
    -install_name @executable_path/../../../../outside/libx.dylib "$o/tiny_lib.o"
  plink "$bad/escape/main" "$o/tiny_main.o" "$stubs/escape/libx.dylib"
  # notmacho: @rpath/libtext.dylib resolves (LC_RPATH @executable_path) to a text file.
  plink "$stubs/notmacho/libtext.dylib" -dylib -install_name @rpath/libtext.dylib \
    "$o/tiny_lib.o"
  plink "$bad/notmacho/main" -rpath @executable_path "$o/tiny_main.o" \
    "$stubs/notmacho/libtext.dylib"
  printf 'not a Mach-O file\n' >"$bad/notmacho/libtext.dylib"
  # noplist: a bundle without Info.plist; badplist: one whose Info.plist is truncated XML.
  plink "$bad/noplist/Bad.app/Contents/MacOS/Bad" "$o/tiny_main.o"
  plink "$bad/badplist/Bad.app/Contents/MacOS/Bad" "$o/tiny_main.o"
  cat >"$bad/badplist/Bad.app/Contents/Info.plist" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>CFBundleExecutable</key>
	<string>Bad</string>
	<key>CFBundleIdentifier</key>
	<string>org.weakscan.Ba
PLIST

  # objdump-dylibs.txt: --dylibs-used and --rpaths of every Mach-O file, sorted by path.
  local f
  (
    cd "$PROC"
    for f in $(find . -type f ! -name '*.plist' ! -name '*.txt' | sed 's|^\./||' | sort); do
      [[ $(head -c 4 "$f" | od -An -tx1 | tr -d ' ') == cffaedfe ]] || continue
      echo "== $f"
      "$OBJDUMP" --macho --dylibs-used "$f"
      "$OBJDUMP" --macho --rpaths "$f"
    done
  ) >"$PROC/objdump-dylibs.txt"
}
build_process

# Importer fixtures (testdata/importers/): an executable that exports an API, the bundles that
# import from it and a dylib pair (testdata/src/importers/; `check --importer`, docs/guide.md):
#   api, api-v2      the executable (chained fixups); v2 hides api::write(int)
#   addon.bundle     -bundle -undefined dynamic_lookup (opcodes): api_open/read/close looked
#                    up flat (ordinal -2), lazily; universal x86_64 + arm64
#   addon-arm64.bundle  its arm64 slice alone (no x86_64 slice)
#   plugin.bundle    -bundle -bundle_loader api (chained): api::write, api::version (ordinal -1)
#   libapi.dylib     install name @rpath/libapi.dylib; client.dylib binds its two functions
#                    two-level (ordinal 2, after libSystem), lazily; both opcodes
IMP="$WORK/importers"
build_importers() {
  local o="$WORK/obj" a
  mkdir -p "$IMP" "$o/importers" "$o/v2/importers" "$o/x86_64/importers" "$o/arm64/importers"
  compile "$o" x86_64 12.0 default v1 importers/api importers/plugin
  # compile's v2 is the descriptors' (-DWEAKSCAN_V2): api's v2 is -DAPI_V2.
  "$CXX" -target x86_64-apple-macos12.0 "${CXXFLAGS[@]}" -DAPI_V2 \
    -c "$SRC/importers/api.cc" -o "$o/v2/importers/api.o"
  link "$IMP/api" x86_64 chained "$o/importers/api.o"
  link "$IMP/api-v2" x86_64 chained "$o/v2/importers/api.o"
  for a in x86_64 arm64; do
    compile "$o/$a" "$a" 11.0 default v1 importers/addon importers/libapi importers/client
    link "$WORK/addon-$a.bundle" "$a" opcodes -bundle -undefined dynamic_lookup \
      "$o/$a/importers/addon.o"
  done
  "$LIPO" -create "$WORK/addon-x86_64.bundle" "$WORK/addon-arm64.bundle" \
    -output "$IMP/addon.bundle"
  cp "$WORK/addon-arm64.bundle" "$IMP/addon-arm64.bundle"
  link "$IMP/plugin.bundle" x86_64 chained -bundle -bundle_loader "$IMP/api" \
    "$o/importers/plugin.o"
  link "$IMP/libapi.dylib" x86_64 opcodes -dylib -install_name @rpath/libapi.dylib \
    "$o/x86_64/importers/libapi.o"
  link "$IMP/client.dylib" x86_64 opcodes -dylib -install_name @rpath/client.dylib \
    "$o/x86_64/importers/client.o" "$IMP/libapi.dylib"
}
build_importers
build_plan
build_flags_regression
build_hide

# arm64e: ld64.lld 22 accepts `-arch arm64e` but cannot link arm64e objects
# (it rejects ARM64_RELOC_AUTHENTICATED_POINTER relocations as "INVALID
# relocation has invalid width of 8 bytes", and says "-fixup_chains is only
# supported on x86_64 and arm64 targets"). Try anyway, keep it only if it works.
e_obj="$WORK/obj/arm64e"
if compile "$e_obj" arm64e 12.0 default v1 main descriptors_a descriptors_b 2>/dev/null &&
  link "$OUT/app-default-chained-arm64e" arm64e chained \
    "$e_obj/main.o" "$e_obj/descriptors_a.o" "$e_obj/descriptors_b.o" 2>/dev/null; then
  echo "note: arm64e link succeeded: app-default-chained-arm64e built"
else
  rm -f "$OUT/app-default-chained-arm64e"
  echo "note: ld64.lld-22 cannot link arm64e; no arm64e fixture"
fi

# ---------------------------------------------------------------------------
# expected.tsv: reference counts, from llvm-objdump output only.

# weak_def_exports FILE ARCH: export-trie lines containing weak_def.
weak_def_exports() {
  "$OBJDUMP" --macho --arch "$2" --exports-trie "$1" | { grep -c weak_def || true; }
}

# weak_bind_symbols_list FILE ARCH FIXUPS: one line per weak-bind site, the
# symbol name (duplicates kept).
weak_bind_list() {
  if [[ $3 == opcodes ]]; then
    # Rows of the --weak-bind table after its header line, without the
    # `strong` rows (strong definitions that override weak ones).
    "$OBJDUMP" --macho --arch "$2" --weak-bind "$1" |
      awk 'hdr && NF && $1 != "strong" { print $NF }
           /^segment +section +address/ { hdr = 1 }'
  else
    # --dyld-info rows whose dylib column (7th) is `weak` (ordinal -3).
    "$OBJDUMP" --macho --arch "$2" --dyld-info "$1" | awk '$7 == "weak" { print $NF }'
  fi
}

fixups_of() {
  # (No `cmd | grep -q` here: with pipefail, grep -q exiting early makes the
  # writer die of SIGPIPE and the pipeline fail.)
  local cmds
  cmds="$("$OBJDUMP" --macho --arch "$2" --private-headers "$1")"
  if grep -q 'cmd LC_DYLD_CHAINED_FIXUPS$' <<<"$cmds"; then
    echo chained
  else
    echo opcodes
  fi
}

{
  printf 'file\tarch\tfixups\tweak_def_exports\tweak_bind_sites\tweak_bind_symbols\n'
  for f in $(cd "$OUT" && ls | sort); do
    for arch in $("$LIPO" -archs "$OUT/$f" | tr ' ' '\n' | sort); do
      fx="$(fixups_of "$OUT/$f" "$arch")"
      exports="$(weak_def_exports "$OUT/$f" "$arch")"
      sites="$(weak_bind_list "$OUT/$f" "$arch" "$fx" | wc -l)"
      symbols="$(weak_bind_list "$OUT/$f" "$arch" "$fx" | sort -u | wc -l)"
      printf '%s\t%s\t%s\t%d\t%d\t%d\n' "$f" "$arch" "$fx" "$exports" "$sites" "$symbols"
    done
  done
} >"$WORK/expected.tsv"

# ---------------------------------------------------------------------------
# Sanity checks: the fixtures must show what they are meant to show.
fail=0
check() {
  if ! eval "$2"; then
    echo "build.sh: check failed for $1: $3" >&2
    fail=1
  fi
}
while IFS=$'\t' read -r f arch fx exports sites symbols; do
  [[ $f == file ]] && continue
  path="$OUT/$f"
  hdr="$("$OBJDUMP" --macho --arch "$arch" --private-header "$path")"
  cmds="$("$OBJDUMP" --macho --arch "$arch" --private-headers "$path")"
  binds="$(weak_bind_list "$path" "$arch" "$fx")"
  case $f in
    app-nooverride-hidden-*)
      check "$f/$arch" '(( exports == 0 ))' "hidden build exports $exports weak defs"
      check "$f/$arch" '! grep -q WEAK_DEFINES <<<"$hdr"' "has MH_WEAK_DEFINES"
      ;;
    app-hidden-*)
      check "$f/$arch" '(( exports == 0 ))' "hidden build exports $exports weak defs"
      check "$f/$arch" 'grep -q WEAK_DEFINES <<<"$hdr"' "no MH_WEAK_DEFINES (strong override)"
      ;;
    *)
      check "$f/$arch" '(( exports > 0 && sites > 0 ))' "no weak-def exports or weak binds"
      check "$f/$arch" 'grep -q WEAK_DEFINES <<<"$hdr"' "no MH_WEAK_DEFINES"
      ;;
  esac
  check "$f/$arch" 'grep -q BINDS_TO_WEAK <<<"$hdr"' "no MH_BINDS_TO_WEAK"
  check "$f/$arch" 'grep -qx __Znwm <<<"$binds"' "no weak bind to operator new (__Znwm)"
  if [[ $fx == opcodes ]]; then
    check "$f/$arch" 'grep -q "cmd LC_DYLD_INFO_ONLY$" <<<"$cmds"' "no LC_DYLD_INFO_ONLY"
    check "$f/$arch" 'grep -Eq "weak_bind_size [1-9]" <<<"$cmds"' "weak_bind_size is 0"
  else
    check "$f/$arch" 'grep -q "cmd LC_DYLD_EXPORTS_TRIE$" <<<"$cmds"' "no LC_DYLD_EXPORTS_TRIE"
    check "$f/$arch" '! grep -q "cmd LC_DYLD_INFO" <<<"$cmds"' "has LC_DYLD_INFO"
  fi
done <"$WORK/expected.tsv"

# Process fixtures. The load order below and process/expected-winners.tsv were derived by hand
# (process/expected.md); this recomputes the winners from llvm-objdump output (imports with
# ordinal -3, export tries) with the same rules, so that a change of the sources that moves a
# winner or a bind target fails here instead of leaving the hand-written files stale.
PROC_ORDER=(App.app/Contents/MacOS/App App.app/Contents/Frameworks/libshared_a.dylib
            App.app/Contents/Frameworks/libshared_b.dylib
            App.app/Contents/Frameworks/deps/libdeep.dylib)
# proc_weak_imports FILE: the names of the chained imports with ordinal -3, in import order.
proc_weak_imports() {
  "$OBJDUMP" --macho --chained-fixups "$1" |
    awk '/^ *lib_ordinal = / { weak = ($3 == "-3") }
         /^ *name_offset = / && weak { n = $NF; gsub(/[()]/, "", n); print n }'
}
check_process() {
  local f hdr cmds exports="$WORK/proc-exports" rows="$WORK/proc-winners.tsv"
  for f in "${PROC_ORDER[@]}"; do
    hdr="$("$OBJDUMP" --macho --private-header "$PROC/$f")"
    cmds="$("$OBJDUMP" --macho --private-headers "$PROC/$f")"
    check "process/$f" 'grep -q WEAK_DEFINES <<<"$hdr"' "no MH_WEAK_DEFINES"
    check "process/$f" 'grep -q "cmd LC_DYLD_CHAINED_FIXUPS$" <<<"$cmds"' "no chained fixups"
  done
  proc_exports "${PROC_ORDER[@]}" >"$exports"
  local deps want="LC_LOAD_DYLIB @rpath/libshared_a.dylib
LC_LOAD_DYLIB @loader_path/../Frameworks/libshared_b.dylib
LC_LOAD_WEAK_DYLIB @rpath/libmissing.dylib
LC_LOAD_DYLIB /usr/lib/libSystem.B.dylib"
  deps="$("$OBJDUMP" --macho --private-headers "$PROC/App.app/Contents/MacOS/App" |
    awk '/^ *cmd LC_(LOAD|LOAD_WEAK|REEXPORT|LOAD_UPWARD)_DYLIB$/ { c = $2 }
         /^ *name / && c != "" { print c, $2; c = "" }')"
  check process/App '[[ $deps == "$want" ]]' "dylib load commands: $deps"
  check process/App '[[ ! -e "$PROC/App.app/Contents/Frameworks/libmissing.dylib" ]]' \
    "libmissing.dylib is shipped"
  check process/libshared_b 'grep -qx "libshared_b.dylib __ZN4proc7CounterIlEERT_v strong" "$exports" &&
      grep -qx "libshared_a.dylib __ZN4proc7CounterIlEERT_v weak" "$exports" &&
      grep -qx "App __ZN4proc7CounterIlEERT_v weak" "$exports"' \
    "Counter<long> is not strong in libshared_b and weak in App and libshared_a"
  proc_winners "$exports" "${PROC_ORDER[@]}" >"$rows"
  check process/expected-winners.tsv 'cmp -s "$rows" "$HERE/process/expected-winners.tsv"' \
    "differs from what llvm-objdump shows (diff $HERE/process/expected-winners.tsv against:
$(cat "$rows"))"
}
# proc_exports FILE...: "leaf symbol weak|strong" of each export-trie entry, files in load order.
proc_exports() {
  local f
  for f in "$@"; do
    "$OBJDUMP" --macho --exports-trie "$PROC/$f" |
      awk -v leaf="${f##*/}" '$1 ~ /^0x/ { print leaf, $2, (/\[weak_def/ ? "weak" : "strong") }'
  done
}
# proc_winners EXPORTS FILE...: the winner of each chained import with ordinal -3 of each FILE (in
# load order): the first definition in load order; a later strong one replaces a weak first one.
proc_winners() {
  local exports=$1 f
  shift
  printf 'requester\tsymbol\twinner\n'
  for f in "$@"; do
    proc_weak_imports "$PROC/$f" | awk -v req="${f##*/}" -v ex="$exports" '
      BEGIN { while ((getline line < ex) > 0) { split(line, a, " "); n++; img[n] = a[1]; sym[n] = a[2]; kind[n] = a[3] } }
      { w = "-"; wk = ""
        for (i = 1; i <= n; i++) if (sym[i] == $1) {
          if (w == "-") { w = img[i]; wk = kind[i] }
          else if (wk == "weak" && kind[i] == "strong") { w = img[i]; wk = "strong" }
        }
        printf "%s\t%s\t%s\n", req, $1, w }'
  done
}
# Reexport/: libre re-exports libbase whole. LC_REEXPORT_DYLIB in libre, libbase's weak
# definitions in libbase's trie and symbol table only (llvm-objdump, llvm-nm), and the winners by
# the same rule: a weak-def lookup probes each trie alone (Loader::hasExportedSymbol, mode
# shallow, does not search re-exported dylibs), so libbase is searched at its own place in the
# load order (main, libre, libdelayinit, then libbase, loaded by libre).
check_reexport() {
  local order=(Reexport/main Reexport/libre.dylib Reexport/libdelayinit.dylib
               Reexport/libbase.dylib)
  local exports="$WORK/rx-exports" rows="$WORK/rx-winners.tsv" used nm
  used="$("$OBJDUMP" --macho --dylibs-used "$PROC/Reexport/libre.dylib")"
  check process/Reexport 'grep -q "@loader_path/libbase.dylib (.*reexport)" <<<"$used"' \
    "libre.dylib does not re-export libbase.dylib: $used"
  proc_exports "${order[@]}" >"$exports"
  check process/Reexport '! grep -q "^libre.dylib .*SlotI[il]E" "$exports" &&
      grep -qx "libbase.dylib __ZN2rx4SlotIlEERT_v weak" "$exports"' \
    "libbase's Slot<long> is in libre's trie, or not weak in libbase's"
  nm="$("$NM" -m "$PROC/Reexport/libbase.dylib")"
  check process/Reexport 'grep -q "weak external __ZN2rx4SlotIlEERT_v$" <<<"$nm"' \
    "llvm-nm -m does not show libbase's Slot<long> as a weak external"
  proc_winners "$exports" "${order[@]}" >"$rows"
  check process/expected-winners-reexport.tsv \
    'cmp -s "$rows" "$HERE/process/expected-winners-reexport.tsv"' \
    "differs from what llvm-objdump shows (diff $HERE/process/expected-winners-reexport.tsv against:
$(cat "$rows"))"
}
check_process

# The importer fixtures show what they are meant to: flat lookups, main-executable binds, a
# two-level bind by install name, and the function v2 hides.
check_importers() {
  local binds
  binds="$("$OBJDUMP" --macho --arch x86_64 --lazy-bind "$IMP/addon.bundle" |
    awk '$4 == "flat-namespace" { print $5 }' | sort | tr '\n' ' ')"
  check importers/addon.bundle '[[ $binds == "_api_close _api_open _api_read " ]]' \
    "flat lazy binds: $binds"
  binds="$("$OBJDUMP" --macho --chained-fixups "$IMP/plugin.bundle" |
    awk '/lib_ordinal = -1/ { m = 1; next } /name_offset/ && m { n = $NF; gsub(/[()]/, "", n); print n; m = 0 }' |
    sort | tr '\n' ' ')"
  check importers/plugin.bundle '[[ $binds == "__ZN3api5writeEi __ZN3api7versionEv " ]]' \
    "main-executable imports: $binds"
  binds="$("$OBJDUMP" --macho --lazy-bind "$IMP/client.dylib" |
    awk '$4 == "libapi" { print $5 }' | sort | tr '\n' ' ')"
  check importers/client.dylib '[[ $binds == "_libapi_get _libapi_put " ]]' \
    "two-level binds to libapi: $binds"
  check importers/api '"$OBJDUMP" --macho --exports-trie "$IMP/api" | grep -q " __ZN3api5writeEi$"' \
    "v1 does not export api::write(int)"
  check importers/api-v2 '! "$OBJDUMP" --macho --exports-trie "$IMP/api-v2" | grep -q " __ZN3api5writeEi$"' \
    "v2 exports api::write(int)"
}
check_importers
check_reexport
(( fail == 0 )) || die "sanity checks failed; bin/, process/ and expected.tsv left unchanged"

# Install: replace bin/ and expected.tsv only after everything succeeded.
rm -rf "$BIN" "$HERE/attr"
mkdir -p "$BIN"
cp "$OUT"/* "$BIN"/
cp -R "$ATTR" "$HERE/attr"
rm -rf "$HERE/importers"
cp -R "$IMP" "$HERE/importers"
install_plan
install_flags_regression
rm -rf "$HERE/hide"
cp -R "$HIDE" "$HERE/hide"
cp "$WORK/expected.tsv" "$TSV"
# process/: replace what the build makes; expected.md and expected-winners.tsv are hand-written.
rm -rf "$HERE/process/App.app" "$HERE/process/App-v2.app" "$HERE/process/Reexport" \
  "$HERE/process/Lazy" "$HERE/process/bad"
mkdir -p "$HERE/process"
cp -R "$PROC/App.app" "$PROC/App-v2.app" "$PROC/Reexport" "$PROC/Lazy" "$PROC/bad" \
  "$PROC/objdump-dylibs.txt" "$HERE/process/"

echo
echo "fixtures in $BIN ($(du -ck "$BIN"/* | tail -n1 | cut -f1) KiB):"
awk -F'\t' '{ printf "%-36s %-7s %-8s %16s %15s %17s\n", $1, $2, $3, $4, $5, $6 }' "$TSV"
echo
echo "process fixtures in $HERE/process:"
(cd "$HERE/process" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | xargs wc -c | sed '$d')

# The dyld logs of the fixtures (testdata/logs/) follow from the binaries: regenerate them too.
echo
python3 "$HERE/logs/gen.py"

# The malformed-input corpus (testdata/malformed/) is made from the fixtures by the tests.
echo
(cd "$HERE/.." && WEAKSCAN_BLESS=1 cargo test --quiet --test integration -- malformed)
