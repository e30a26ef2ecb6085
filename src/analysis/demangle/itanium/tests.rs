//! One hand-written name per production and per bound; each printed form quoted is
//! `llvm-cxxfilt-22`'s.

use super::budget::{MAX_DEPTH, MAX_NAME_BYTES, Reject};
use super::read;

/// The pattern of `plain`, read with a generous limit.
fn pattern(plain: &str) -> String {
    match read(plain, 1 << 20) {
        Ok(r) => r.keys.0,
        Err(e) => panic!("{plain}: {e:?}"),
    }
}

fn rejected(plain: &str) -> Reject {
    read(plain, 1 << 20).expect_err(plain)
}

#[test]
fn encodings_and_names() {
    // 5.1.2 <encoding>: data, functions, function templates (return type dropped).
    assert_eq!(pattern("_Z1x"), "x");
    assert_eq!(pattern("_Z1fv"), "f(…)");
    assert_eq!(pattern("_Z1fIiEvT_"), "f<…>(…)");
    // 5.1.5 <nested-name> with CV- and ref-qualifiers.
    assert_eq!(pattern("_ZNK1A1fEv"), "A::f(…) const");
    assert_eq!(pattern("_ZNKR1A1fEv"), "A::f(…) const &");
    assert_eq!(pattern("_ZNO1A1fEv"), "A::f(…) &&");
    // <unscoped-name> in std.
    assert_eq!(
        pattern("_ZSt4moveIRiEONSt16remove_referenceIT_E4typeEOS2_"),
        "std::move<…>(…)"
    );
    // 5.1.5.7 local names, string literals, discriminators.
    assert_eq!(pattern("_ZZ1fvE1a_0"), "f(…)::a");
    assert_eq!(pattern("_ZZ1fvEs"), "f(…)::string literal");
    // 5.1.5.4 constructors and destructors; abi tags (5.1.5.2); anonymous namespaces.
    assert_eq!(pattern("_ZN1AC2Ev"), "A::A(…)");
    assert_eq!(pattern("_ZN1AD0Ev"), "A::~A(…)");
    assert_eq!(pattern("_ZN1A1fB5cxx11Ev"), "A::f[abi:cxx11](…)");
    assert_eq!(
        pattern("_ZN12_GLOBAL__N_11fEv"),
        "(anonymous namespace)::f(…)"
    );
    // Operators, conversion operators (5.1.5), a clone suffix.
    assert_eq!(pattern("_ZN1AixEi"), "A::operator[](…)");
    assert_eq!(pattern("_Znwm"), "operator new(…)");
    assert_eq!(pattern("_ZN1AltIiEEbv"), "A::operator< <…>(…)");
    assert_eq!(pattern("_ZN1AcvPKcEv"), "A::operator char const*(…)");
    assert_eq!(
        pattern("_ZNK3FoocvT_IiEEv"),
        "Foo::operator int<…>(…) const"
    );
    assert_eq!(pattern("_ZN1A1fEv.cold.1"), "A::f(…) [clone .cold.1]");
}

#[test]
fn closures_unnamed_types_and_substitutions() {
    // 5.1.8 closure and unnamed types, numbered from their discriminator.
    assert_eq!(
        pattern("_ZZ1fvENKUlvE_clEv"),
        "f(…)::{lambda(…)#1}::operator()(…) const"
    );
    assert_eq!(
        pattern("_ZZ1fvENKUliE0_clEi"),
        "f(…)::{lambda(…)#2}::operator()(…) const"
    );
    assert_eq!(pattern("_ZN1A1BUt_E"), "A::B::{unnamed type#1}");
    // 5.1.5.10 substitutions: `S_`, `S0_`, and the standard abbreviations.
    assert_eq!(pattern("_ZN2ns1AINS_1BEE1fEv"), "ns::A<…>::f(…)");
    assert_eq!(pattern("_ZNSs4sizeEv"), "std::string::size(…)");
    assert_eq!(rejected("_Z1fS0_"), Reject::Malformed);
}

#[test]
fn special_names() {
    // 5.1.4 <special-name>.
    assert_eq!(pattern("_ZTV1A"), "vtable for A");
    assert_eq!(pattern("_ZTT1A"), "VTT for A");
    assert_eq!(pattern("_ZTI1A"), "typeinfo for A");
    assert_eq!(pattern("_ZTS1A"), "typeinfo name for A");
    assert_eq!(pattern("_ZThn8_N1A1fEv"), "non-virtual thunk to A::f(…)");
    assert_eq!(pattern("_ZTv0_n24_N1A1fEv"), "virtual thunk to A::f(…)");
    assert_eq!(
        pattern("_ZTch0_h16_N1B5cloneEv"),
        "covariant return thunk to B::clone(…)"
    );
    assert_eq!(pattern("_ZGVZ1fvE1x"), "guard variable for f(…)::x");
    assert_eq!(pattern("_ZTW1x"), "TLS wrapper function for x");
    assert_eq!(
        pattern("_ZTAXtl1SLi1EEE"),
        "template parameter object for S"
    );
    assert_eq!(rejected("_ZTx1A"), Reject::Malformed);
}

#[test]
fn types_expressions_and_packs() {
    // 5.1.5.3 types, 5.1.6 expressions, 5.1.5.5 argument packs and expansions.
    for plain in [
        "_Z1fPKcRiOlA10_iM1AFivEPFvvE",
        "_Z1fIiEvDTplfp_fp_E",
        "_Z1fILi3EEvv",
        "_Z1fIJicEEvDpT_",
        "_ZN1AIXadL_Z1gvEEE1fEv",
        "_Z1fIiEvN1AIXszT_EE1BE",
        "_Z1fDv4_f",
        "_Z1fU8__vectori",
    ] {
        assert!(read(plain, 1 << 20).is_ok(), "{plain}");
    }
    assert_eq!(rejected("_Z1fW3mod1x"), Reject::Unsupported);
}

#[test]
fn each_bound_has_its_reason() {
    // Depth.
    let deep = format!("_Z1f{}i", "P".repeat(MAX_DEPTH as usize + 8));
    assert_eq!(rejected(&deep), Reject::TooDeep);
    let fine = format!("_Z1f{}i", "P".repeat(64));
    assert!(read(&fine, 1 << 20).is_ok());
    // Printed length: a back-reference doubling the output at each level.
    let doubling = crate::analysis::demangle::tests::exponential_name(24);
    assert!(matches!(rejected(&doubling[1..]), Reject::TooLong(_)));
    // The limit the caller gives.
    assert!(matches!(read("_Z1fv", 3), Err(Reject::TooLong(_))));
    // Pack expansions count once per element.
    let pack = format!("_Z1fIJ{}EEvDpPFvT_{}E", "i".repeat(64), "S_".repeat(64));
    let r = read(&pack, usize::MAX).unwrap();
    assert!(r.printed_bound > 64 * 64 * 2, "{}", r.printed_bound);
    // Name length and NUL.
    assert_eq!(rejected("_Z1f\0v"), Reject::TooBig);
    let big = format!("_Z1f{}", "i".repeat(MAX_NAME_BYTES));
    assert_eq!(rejected(&big), Reject::TooBig);
    // Malformed input of every kind ends in a reason, in linear work.
    for plain in [
        "",
        "_Z",
        "_ZN",
        "_ZN1A",
        "_Z1",
        "_Z9a",
        "_ZdlStIStIStIStI",
        "_ZTc\u{FFFD}v",
    ] {
        let e = rejected(plain);
        assert_eq!(e, Reject::Malformed, "{plain:?}");
    }
}

#[test]
fn steps_are_linear_in_the_name() {
    // `StI`×30 took cpp_demangle hours; here a few steps a byte.
    let sti = format!("_Zdl{}", "StI".repeat(30));
    assert_eq!(rejected(&sti), Reject::Malformed);
    let long = format!("_Z1f{}", "i".repeat(100_000));
    let r = read(&long, usize::MAX).unwrap();
    assert!(r.steps < 4 * long.len() as u64, "{}", r.steps);
}

// Regression (found writing the hostile tests): vendor qualifiers (`U…`) and designated
// initializers (`di…`) recursed without counting their depth, so 50,000 of them overflowed the
// stack; and a forward template reference naming itself was followed without end.
#[test]
fn regression_vendor_qualifiers_and_designators_recursed_without_a_depth_bound() {
    for deep in [
        format!("_Z1f{}i", "U1a".repeat(50_000)),
        format!("_Z1fIXtl1A{}Li1EEEEv", "di1a".repeat(50_000)),
        format!("_Z1f{}", "A_".repeat(100_000)),
        format!("_Z1fIX{}Li1EEEv", "ng".repeat(100_000)),
    ] {
        assert_eq!(rejected(&deep), Reject::TooDeep, "{}", &deep[..16]);
    }
    // A forward template reference naming itself: no endless following.
    let _ = read("_ZN1AcvT_IS0_EEv", 1 << 20);
    let _ = read("_ZN1AcvT_IS1_EEv", 1 << 20);
}

// Regression (fuzz finding, `printer`): after `Tp` (and inside `Tt … E`) the reader took any two
// bytes as the next template parameter declaration, so it read names LLVM's demangler rejects
// (`_Z2v8ITpEnteE`: `Tp` then `En…`), and a `Tp` at the end of a name stepped past its end
// until the depth bound.
#[test]
fn regression_a_pack_parameter_declaration_read_any_two_bytes_as_its_declaration() {
    assert_eq!(rejected("_Z2v8ITpEnteE"), Reject::Malformed);
    assert_eq!(rejected("_Z1fITpEEvv"), Reject::Malformed);
    assert_eq!(rejected("_Z2v8ITpEEv"), Reject::Malformed);
    assert_eq!(rejected("_Z1fITtXYEiEvv"), Reject::Malformed);
    assert_eq!(rejected("_Z1fITp"), Reject::Malformed);
}

// Regression (fuzz finding, `printer`): a member-like friend name (`F` before an unqualified
// name in a nested name) is printed by LLVM as `scope::friend name`, 7 bytes more than the
// bound counted, so `__cxa_demangle`'s output could pass the bound it was given.
#[test]
fn regression_a_friend_name_printed_past_the_bound() {
    for (plain, printed) in [
        ("_ZNooFooE", "operator||::friend operator||"),
        (
            "_ZN6kcu_751FoossFoossooE",
            "kcu_75::F::operator||::operator<=>::friend operator||::operator<=>::operator||",
        ),
    ] {
        let r = read(plain, 1 << 20).expect(plain);
        assert!(
            r.printed_bound >= printed.len() as u64,
            "{plain}: bound {} < {}",
            r.printed_bound,
            printed.len()
        );
    }
}

// Regression (fuzz finding, `printer`): after `St` LLVM reads the unqualified name in the scope
// `std`, so a constructor, destructor or member-like friend there is a name it prints
// (`std::std()`); the reader read it in no scope and found it malformed.
#[test]
fn regression_a_constructor_of_std_was_malformed() {
    for (plain, printed) in [
        ("_ZStC1v", "std::std()"),
        ("_ZStD1v", "std::~std()"),
        ("_ZStF3foov", "std::friend foo()"),
        ("_Z1fStC3t", "f(std::std, unsigned short)"),
    ] {
        let r = read(plain, 1 << 20).expect(plain);
        assert!(r.printed_bound >= printed.len() as u64, "{plain}");
    }
    // `St` before anything else is read as before.
    assert_eq!(
        pattern("_ZSt4moveIRiEONSt16remove_referenceIT_E4typeEOS2_"),
        "std::move<…>(…)"
    );
}
