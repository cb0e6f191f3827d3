#pragma once
// Private temporary directories for the C++ tests that make run directories (transports).
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace islands_test {

//! A new directory (mode 0700) on tmpfs when there is one (what runs use), else in /tmp, named
//! islands-<what>-XXXXXX; exits the test with status 2 when none can be made.
inline std::string make_temp_dir(const std::string& what) {
  const std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  const std::string tmpl = base + "/islands-" + what + "-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    std::perror("mkdtemp");
    std::exit(2);
  }
  return buf.data();
}

//! The names in dir, sorted (so that two listings compare equal).
inline std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

//! Removes dir and the files in it.
inline void remove_dir(const std::string& dir) {
  for (const auto& name : list_dir(dir)) unlink((dir + "/" + name).c_str());
  rmdir(dir.c_str());
}

}  // namespace islands_test
