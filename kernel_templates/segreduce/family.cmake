# The segmented reduction family: its sources and its template (included by autotune_family(segreduce)).
list(APPEND AUTOTUNE_FAMILY_SOURCES
  kernel_templates/segreduce/problem.cpp
  kernel_templates/segreduce/config.cpp
  kernel_templates/segreduce/source.cpp
  kernel_templates/segreduce/space.cpp
  kernel_templates/segreduce/reference.cpp
  kernel_templates/segreduce/launcher.cpp
  kernel_templates/segreduce/workload.cpp
  kernel_templates/segreduce/handle.cpp
  kernel_templates/segreduce/family.cpp)
list(APPEND AUTOTUNE_EMBED_INPUTS "segreduce_template=${CMAKE_CURRENT_LIST_DIR}/segreduce.cu")
list(APPEND AUTOTUNE_EMBED_INPUTS "segreduce_source_cpp=${CMAKE_CURRENT_LIST_DIR}/source.cpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "segreduce_config_cpp=${CMAKE_CURRENT_LIST_DIR}/config.cpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "segreduce_enums_hpp=${CMAKE_CURRENT_LIST_DIR}/enums.hpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "segreduce_workspace_layout_hpp=${CMAKE_CURRENT_LIST_DIR}/workspace_layout.hpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "segreduce_policy_json=${CMAKE_CURRENT_LIST_DIR}/policy.json")
