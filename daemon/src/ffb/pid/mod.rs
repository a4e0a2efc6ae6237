//! The HID PID protocol as rigd speaks it to direct-drive bases over hidraw: parse the
//! device's report descriptor ([`descriptor`]), find the PID reports, their fields and the
//! descriptor's quirks in it ([`layout`]), and encode/decode the reports ([`encode`]). Pure
//! code, no I/O: the hidraw writer thread (`ffb::hidraw_pid`) does the talking.

pub mod descriptor;
pub mod encode;
pub mod layout;
#[cfg(test)]
pub(crate) mod test_descriptors;

pub use descriptor::{parse, Descriptor, DescriptorError, ReportKind};
pub use encode::{BlockLoadReply, DecodeError, LoadStatus, Operation, PoolReply};
pub use layout::{Control, EffectKind, LayoutError, PidLayout, Quirk};
