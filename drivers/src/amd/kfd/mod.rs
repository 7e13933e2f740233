//! The KFD driver path: /dev/kfd ioctls and the render node, as ROCm's thunk would issue them,
//! without ROCm.

pub mod cwsr;
