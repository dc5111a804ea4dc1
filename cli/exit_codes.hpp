// The exit status of every cubecheck command (README, "Exit status").
#pragma once

namespace cubecheck::cli {

inline constexpr int kExitConformant = 0;     ///< conformant, clean, every mutant killed
inline constexpr int kExitNonconformant = 1;  ///< nonconformant, findings, a mutant survived
inline constexpr int kExitUsage = 2;          ///< bad arguments or unreadable input
inline constexpr int kExitInternal = 3;       ///< an internal error of cubecheck itself
inline constexpr int kExitInterrupted = 130;  ///< SIGINT or SIGTERM: 128 + SIGINT, as shells say

}  // namespace cubecheck::cli
