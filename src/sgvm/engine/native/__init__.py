"""The native backend: SPIR-V → C++ → machine code through the bundled clang, run in
lock-step lanes per work-group on a thread pool (docs/native.md)."""
