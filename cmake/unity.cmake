# Unity builds (AUTOTUNE_UNITY_BUILD): a target's C++ sources are compiled in groups, each group as one translation
# unit, so that the headers every file includes (fmt header-only, nlohmann-json, doctest, the standard library) are
# parsed and their templates compiled once per group rather than once per file. A clean build takes a fraction of the
# CPU time (CI builds from scratch on 2 cores); an edit recompiles its whole group.
#
# autotune_unity(target [GROUP name file...]...)
#   Without GROUP arguments each source joins the group of its folder (core/, cache/, kernel_templates/reduce/, ...):
#   files of one folder share their vocabulary, while two families' files define the same internal names (a Builder in
#   each space.cpp, config_of in each family.cpp) and must not meet. With GROUP arguments only the files named join
#   the named groups, chosen so that no two files of a group define the same internal name. Files in no group (a
#   main() with DOCTEST_CONFIG_IMPLEMENT, generated sources, CUDA) are compiled alone. Group names are shared by the
#   targets of a directory (a source file's group is a property of the file): call it where the target is defined.
function(autotune_unity target)
  if(NOT AUTOTUNE_UNITY_BUILD)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  if(ARGN)
    set(group "")
    foreach(arg IN LISTS ARGN)
      if(arg STREQUAL "GROUP")
        set(group "<next>")
      elseif(group STREQUAL "<next>")
        set(group "${arg}")
      else()
        set_source_files_properties(${arg} PROPERTIES UNITY_GROUP "${group}")
      endif()
    endforeach()
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  foreach(source IN LISTS sources)
    if(NOT source MATCHES "\\.cpp$" OR IS_ABSOLUTE "${source}")
      continue()  # generated sources (absolute paths in the build tree) and CUDA are compiled alone
    endif()
    get_filename_component(folder "${source}" DIRECTORY)
    string(MAKE_C_IDENTIFIER "${folder}" group)
    set_source_files_properties(${source} PROPERTIES UNITY_GROUP "${group}")
  endforeach()
endfunction()
