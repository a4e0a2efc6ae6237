//! Motion platforms: cueing (vehicle motion to platform pose), kinematics (pose to actuator
//! values), safety (limits, state machine, parking), controller output (serial and UDP
//! writer threads) and the RT stage that ties them to the 1 kHz loop.

pub mod cueing;
pub mod kinematics;
