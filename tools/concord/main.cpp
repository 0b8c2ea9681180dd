// The concord command line (being written).
#include <iostream>

#include "concord/concord.h"

int main() {
  for (const auto& d : concord::devices()) std::cout << d << "\n";
  return 0;
}
