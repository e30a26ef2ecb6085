//! A whole process as one [`Image`], for the gate (`check`, `baseline`): the weak definitions,
//! weak-bind targets and strong overrides of every image on disk, and the process's lookups in
//! dyld's order ([`crate::analysis::coalesce::lookup_sequence`]), so that the figures of
//! [`crate::analysis::report::ImageSummary`] are the process's:
//!
//! ```text
//! predicted_weak_lookups   = the process's weak-def lookups (every image's, as coalesce counts)
//! weak_def_exports         = Σ weak definitions of the images on disk (a name in two images: 2)
//! weak_bind_symbols        = distinct weak-bound names over all images
//! ```
//!
//! Trie probes are not a property of names: the caller takes them from the coalescing.
//! Attribution is per image and is not carried over (groups by library or object say "no
//! attribution").

use crate::analysis::coalesce::lookup_sequence;
use crate::model::{Image, Lookup, Name};

use crate::process::Process;

/// The name of the merged image (its `image` in reports and baselines).
pub const MERGED_NAME: &str = "process";

/// `process` as one image (see the module docs). `None` when its main executable was not read.
pub fn merged(process: &Process) -> Option<Image> {
    let main = process.main();
    let first = main.image.as_ref()?;
    let mut image = Image {
        path: main
            .path
            .as_ref()
            .map_or_else(|| main.name.clone(), |p| p.display().to_string()),
        name: MERGED_NAME.to_string(),
        arch: Some(process.arch.clone()),
        filetype: first.filetype,
        flags: first.flags,
        fixup_format: first.fixup_format,
        weak_definitions: Vec::new(),
        other_exports: Default::default(),
        bind_targets: Vec::new(),
        strong_overrides: Vec::new(),
        lookups: Vec::new(),
        source: first.source.clone(),
        attribution: None,
        uuid: None,
        linkage: None,
    };
    for im in process.images.iter().filter_map(|pi| pi.image.as_ref()) {
        image
            .weak_definitions
            .extend(im.weak_definitions.iter().cloned());
        image.bind_targets.extend(im.bind_targets.iter().cloned());
        image
            .strong_overrides
            .extend(im.strong_overrides.iter().cloned());
    }
    image.lookups = lookup_sequence(process)
        .into_iter()
        .map(|(_, name, reason)| Lookup {
            symbol: Name::from(name),
            reason,
            supplier: None,
        })
        .collect();
    Some(image)
}
