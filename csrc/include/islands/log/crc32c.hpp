#pragma once
#include <cstddef>
#include <cstdint>

namespace islands {

//! CRC-32C (Castagnoli) of `n` bytes, continuing from `crc` (0 to start). Chosen over a fast
//! non-cryptographic hash because a CRC detects every burst error up to 32 bits and every odd
//! number of flipped bits (what torn sectors and bit rot produce), and the Castagnoli
//! polynomial is the one storage systems use (iSCSI, ext4, RocksDB), with hardware support
//! on x86 (SSE4.2) and ARMv8. Here: the SSE4.2 instruction where the CPU has it (chosen once,
//! at the first call), else the portable table implementation; both give the same value.
std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc = 0);

//! crc32c by the portable slicing-by-8 table implementation, whatever the CPU.
std::uint32_t crc32c_portable(const void* data, std::size_t n, std::uint32_t crc = 0);

//! Whether crc32c uses the CPU's CRC-32C instruction.
bool crc32c_in_hardware();

}  // namespace islands
