// The files of export/ascendc/, embedded at build time (cmake/EmbedTemplates.cmake), so an
// installed cubecheck writes the same project as one run from the source tree.
#pragma once

#include <string_view>

namespace cubecheck::vec::ascendc_templates {

extern const std::string_view kKernel;      ///< export/ascendc/cubecheck_kernel.asc
extern const std::string_view kHostMain;    ///< export/ascendc/main.cpp
extern const std::string_view kCMakeLists;  ///< export/ascendc/CMakeLists.txt
extern const std::string_view kReadme;      ///< export/ascendc/README.md

}  // namespace cubecheck::vec::ascendc_templates
