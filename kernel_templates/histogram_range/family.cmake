# The range-histogram family: its sources and its template (included by autotune_family(histogram_range)).
list(APPEND AUTOTUNE_FAMILY_SOURCES
  kernel_templates/histogram_range/problem.cpp
  kernel_templates/histogram_range/config.cpp
  kernel_templates/histogram_range/source.cpp
  kernel_templates/histogram_range/space.cpp
  kernel_templates/histogram_range/reference.cpp
  kernel_templates/histogram_range/launcher.cpp
  kernel_templates/histogram_range/workload.cpp
  kernel_templates/histogram_range/handle.cpp
  kernel_templates/histogram_range/family.cpp)
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_range_template=${CMAKE_CURRENT_LIST_DIR}/histogram_range.cu")
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_range_region_map_cuh=${CMAKE_CURRENT_LIST_DIR}/region_map.cuh")
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_range_source_cpp=${CMAKE_CURRENT_LIST_DIR}/source.cpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_range_config_cpp=${CMAKE_CURRENT_LIST_DIR}/config.cpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_range_enums_hpp=${CMAKE_CURRENT_LIST_DIR}/enums.hpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "histogram_range_policy_json=${CMAKE_CURRENT_LIST_DIR}/policy.json")
