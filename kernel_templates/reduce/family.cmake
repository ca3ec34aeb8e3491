# The reduction family: its sources and its template (included by autotune_family(reduce) in CMakeLists.txt).
list(APPEND AUTOTUNE_FAMILY_SOURCES
  kernel_templates/reduce/problem.cpp
  kernel_templates/reduce/config.cpp
  kernel_templates/reduce/source.cpp
  kernel_templates/reduce/space.cpp
  kernel_templates/reduce/launcher.cpp
  kernel_templates/reduce/workload.cpp
  kernel_templates/reduce/handle.cpp
  kernel_templates/reduce/family.cpp)
list(APPEND AUTOTUNE_EMBED_INPUTS "reduce_template=${CMAKE_CURRENT_LIST_DIR}/reduce.cu")
list(APPEND AUTOTUNE_EMBED_INPUTS "reduce_source_cpp=${CMAKE_CURRENT_LIST_DIR}/source.cpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "reduce_config_cpp=${CMAKE_CURRENT_LIST_DIR}/config.cpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "reduce_enums_hpp=${CMAKE_CURRENT_LIST_DIR}/enums.hpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "reduce_workspace_layout_hpp=${CMAKE_CURRENT_LIST_DIR}/workspace_layout.hpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "reduce_policy_json=${CMAKE_CURRENT_LIST_DIR}/policy.json")
