# The histogram family: its sources and its template (included by autotune_family(histogram) in CMakeLists.txt).
list(APPEND AUTOTUNE_FAMILY_SOURCES
  kernel_templates/histogram/problem.cpp
  kernel_templates/histogram/config.cpp
  kernel_templates/histogram/source.cpp
  kernel_templates/histogram/value_bins.cpp
  kernel_templates/histogram/sparse_values.cpp
  kernel_templates/histogram/space.cpp
  kernel_templates/histogram/reference.cpp
  kernel_templates/histogram/launcher.cpp
  kernel_templates/histogram/workload.cpp
  kernel_templates/histogram/handle.cpp
  kernel_templates/histogram/family.cpp)
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_template=${CMAKE_CURRENT_LIST_DIR}/histogram.cu")
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_region_map_cuh=${CMAKE_CURRENT_LIST_DIR}/region_map.cuh")
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_source_cpp=${CMAKE_CURRENT_LIST_DIR}/source.cpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_config_cpp=${CMAKE_CURRENT_LIST_DIR}/config.cpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_enums_hpp=${CMAKE_CURRENT_LIST_DIR}/enums.hpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_value_bins_cpp=${CMAKE_CURRENT_LIST_DIR}/value_bins.cpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_workspace_layout_hpp=${CMAKE_CURRENT_LIST_DIR}/workspace_layout.hpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_policy_json=${CMAKE_CURRENT_LIST_DIR}/policy.json")
