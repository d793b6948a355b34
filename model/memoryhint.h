// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>

// Defined in builds with AddressSanitizer (GCC's and clang's ways of saying so), whose allocator replaces malloc.
#if defined(__SANITIZE_ADDRESS__)
#define TIMESINK_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TIMESINK_ADDRESS_SANITIZER 1
#endif
#endif

namespace timesink::model {

/// Memory advice and mappings for the model's large blocks: the one place the model asks the operating system
/// about pages. The advice calls are hints: where the system lacks them (or refuses), nothing else changes.
///
/// Why: touching fresh memory costs a page fault per 4 KiB, and in a virtual machine each fault is an exit to the
/// hypervisor. On the 2-core CI machine a first write to 256 MB took 0.80 s page by page and 0.42 s when each
/// 256 KiB was mapped by one call first; a 1 GB torch_npu import faults in ~170,000 pages.

/// Large blocks in mappings of their own, for PodBuffer's columns past a few MiB: 2 MiB-aligned, advised to use
/// transparent huge pages from 4 MiB (a huge page can leave up to 2 MiB of resident slack past the last write; on
/// the 1 GB torch_npu import that cost 12 MB of peak RSS and saved ~40,000 page faults), grown and shrunk by remapping
/// (no copy). Where the system has no mremap they are malloc/realloc/free blocks. mapLarge/remapLarge return nullptr
/// when out of memory (the old block then stays).
///
/// Why: in a virtual machine every first touch of a 4 KiB page also exits to the hypervisor, which the guest
/// counts as user time in the writing code; the 1 GB torch_npu import wrote ~450 MB of fresh pages that way.
void* mapLarge(std::size_t bytes) noexcept;
void* remapLarge(void* block, std::size_t oldBytes, std::size_t newBytes) noexcept;
void unmapLarge(void* block, std::size_t bytes) noexcept;
/// Asks for transparent huge pages over a whole mapLarge block of 2 MiB or more that is written whole at its
/// size (PodBuffer::resizeForOverwrite, for the snapshot reader). Whole, so that it stays one mapping for
/// remapLarge: advice over part of it would split it, and mremap refuses a range over two mappings.
void adviseHugePagesLarge(void* block, std::size_t bytes) noexcept;

/// Blocks allocated at their final size and then written whole (ColumnVector's, from kColumnMapFromBytes): a mapping
/// of their own in transparent huge pages, as their slack is at most the last huge page's unwritten part. Returns
/// nullptr when out of memory; where the system has no mmap they are malloc blocks.
inline constexpr std::size_t kColumnMapFromBytes = std::size_t(2) << 20;
void* allocateColumnBlock(std::size_t bytes) noexcept;
void freeColumnBlock(void* block, std::size_t bytes) noexcept;

/// Maps the whole pages inside [data, data + bytes) for writing, with one call (MADV_POPULATE_WRITE).
void prefaultForWrite(void* data, std::size_t bytes) noexcept;

/// Asks for transparent huge pages over the 2 MiB-aligned interior of a block that is allocated at its final size
/// and then written whole (the snapshot reader's std::vector columns); never for a mapLarge block, whose mapping
/// the advice would split (adviseHugePagesLarge is for those). Not for blocks that grow: there huge pages made a
/// 200 MB import 30 % slower and its peak 25 % higher (zeroing 2 MiB at a time, slack pages made resident).
/// Blocks below 2 MiB are left alone; the system's policy (`transparent_hugepage/enabled`) decides the rest.
void adviseHugePages(void* data, std::size_t bytes) noexcept;

} // namespace timesink::model
