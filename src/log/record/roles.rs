//! Which image of a log is the main executable, and what the others are: dyld fixes the images
//! up in `state.loaded` order, where the inserted libraries come before the main executable
//! (dyld-1378 DyldRuntimeState.cpp:677 `RuntimeState::loadInsertedLibraries`; dyldMain.cpp
//! `prepare()` up to dyld-1245) and everything else after it.
//!
//! The reader guesses the main executable from the log alone
//! ([`MainBy`](crate::model::MainBy)); [`set_main`] names it when the caller knows better
//! (`verify`: the binary's name).

use crate::model::{Image, LogRole, LookupReason, MainBy, Source};

/// The role of the image at position `at` of the fixup order, the main executable's being
/// `main_at`: images fixed up before it are inserted dylibs.
pub(crate) fn role(at: Option<u32>, main_at: Option<u32>, main: bool) -> LogRole {
    match (at, main_at) {
        _ if main => LogRole::Main,
        (Some(a), Some(m)) if a < m => LogRole::Inserted,
        _ => LogRole::Loaded,
    }
}

/// Makes `images[k]` (read from one log, [`read_log`](super::read_log)) the main executable
/// and returns its new index, 0: the lookups no bind line followed (`handleStrongWeakDefOverrides`'
/// checks, made for the main executable) move to it, ahead of its own, the roles follow the
/// fixup order, and it is listed first. Images not read from a log are left as they are.
pub fn set_main(images: &mut [Image], k: usize) -> usize {
    let Some(main_at) = images.get(k).and_then(|i| i.log()).map(|l| l.fixup_order) else {
        return k;
    };
    let old = images
        .iter()
        .position(|i| i.log().is_some_and(|l| l.role == LogRole::Main));
    if old == Some(k) {
        return k;
    }
    if let Some(m) = old {
        let (checks, own): (Vec<_>, Vec<_>) = std::mem::take(&mut images[m].lookups)
            .into_iter()
            .partition(|l| l.reason == LookupReason::StrongOverrideCheck);
        images[m].lookups = own;
        let mine = std::mem::take(&mut images[k].lookups);
        images[k].lookups = checks.into_iter().chain(mine).collect();
    }
    for (j, im) in images.iter_mut().enumerate() {
        if let Source::Log(l) = &mut im.source {
            l.role = role(l.fixup_order, main_at, j == k);
            l.main_by = (j == k).then_some(MainBy::Named);
        }
    }
    images[..=k].rotate_right(1);
    0
}

#[cfg(test)]
mod tests {
    use super::super::tests::read;
    use super::*;

    #[test]
    fn a_named_main_executable_takes_the_override_checks_and_the_lead() {
        let mut log = String::new();
        for n in crate::model::TREAT_AS_WEAK {
            log += &format!("dyld[5]: looking for weak-def symbol '{n}':\n");
        }
        // Neither name looks like a library: the reader takes the first.
        log += "dyld[5]: <interposer/bind#0> -> 0x10 (libSystem.B.dylib/_puts)\n";
        log += "dyld[5]: looking for weak-def symbol '__Z1fv':\n";
        log += "dyld[5]: <app/bind#0> -> 0x10 (app/__Z1fv)\n";
        let mut images = read(&log, None).unwrap();
        assert_eq!(images[0].name, "interposer");
        assert_eq!(images[0].seen_weak_lookups(), Some(22));
        assert_eq!(set_main(&mut images, 1), 0);
        assert_eq!(images[0].name, "app");
        assert_eq!(images[0].seen_weak_lookups(), Some(23));
        assert_eq!(images[1].seen_weak_lookups(), Some(0));
        let l = images[0].log().unwrap();
        assert_eq!((l.role, l.main_by), (LogRole::Main, Some(MainBy::Named)));
        assert_eq!(images[1].log().unwrap().role, LogRole::Inserted);
        assert_eq!(set_main(&mut images, 0), 0);
    }
}
