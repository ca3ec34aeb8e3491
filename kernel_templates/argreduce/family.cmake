# The arg-reduction family: its sources and its template (included by autotune_family(argreduce) in CMakeLists.txt).
list(APPEND AUTOTUNE_FAMILY_SOURCES
  kernel_templates/argreduce/problem.cpp
  kernel_templates/argreduce/config.cpp
  kernel_templates/argreduce/source.cpp
  kernel_templates/argreduce/space.cpp
  kernel_templates/argreduce/reference.cpp
  kernel_templates/argreduce/launcher.cpp
  kernel_templates/argreduce/workload.cpp
  kernel_templates/argreduce/handle.cpp
  kernel_templates/argreduce/family.cpp)
list(APPEND AUTOTUNE_EMBED_INPUTS "argreduce_template=${CMAKE_CURRENT_LIST_DIR}/argreduce.cu")
list(APPEND AUTOTUNE_EMBED_INPUTS "argreduce_order_cuh=${CMAKE_CURRENT_LIST_DIR}/order.cuh")
list(APPEND AUTOTUNE_EMBED_INPUTS "argreduce_source_cpp=${CMAKE_CURRENT_LIST_DIR}/source.cpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "argreduce_config_cpp=${CMAKE_CURRENT_LIST_DIR}/config.cpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "argreduce_enums_hpp=${CMAKE_CURRENT_LIST_DIR}/enums.hpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "argreduce_workspace_layout_hpp=${CMAKE_CURRENT_LIST_DIR}/workspace_layout.hpp")
list(APPEND AUTOTUNE_EMBED_INPUTS "argreduce_policy_json=${CMAKE_CURRENT_LIST_DIR}/policy.json")
