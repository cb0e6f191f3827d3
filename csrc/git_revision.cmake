# Writes islands/_revision.py (OUT) with the source tree's git commit, "-dirty" when tracked files
# have uncommitted changes, "unknown" outside a git checkout. Run at every build (cmake -P), so
# that an installed wheel records the revision it was built from (islands.measure.revision.git_revision
# reads it when the package is not a git checkout). The file is rewritten only when it changes.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse HEAD
  OUTPUT_VARIABLE revision RESULT_VARIABLE failed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(failed OR revision STREQUAL "")
  set(revision "unknown")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
    OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT changes STREQUAL "")
    string(APPEND revision "-dirty")
  endif()
endif()
set(text "\"\"\"Written at build time by csrc/git_revision.cmake: the git revision the package was built from.\"\"\"\n\nGIT_REVISION = \"${revision}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
