// The program every consumer project builds: it uses the parts of concord
// that need its link dependencies (LAPACKE through linalg::solve, the OpenCL
// and Vulkan loaders through device discovery) and checks one result, so a
// missing library fails at link time and a broken one at run time.
#include <concord/concord.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  using namespace concord;
  const Tensor a = from_vector(std::vector<double>{4, 1, 2, 3}, {2, 2});
  const Tensor b = from_vector(std::vector<double>{1, 2}, {2, 1});
  const std::vector<double> x = linalg::solve(a, b).to_vector<double>();
  // 4x + y = 1, 2x + 3y = 2: x = 0.1, y = 0.6.
  if (std::fabs(x[0] - 0.1) > 1e-12 || std::fabs(x[1] - 0.6) > 1e-12) {
    std::printf("concord consumer: wrong solution %g %g\n", x[0], x[1]);
    return 1;
  }
  const float s = sum(ones({3, 4})).item<float>();
  if (s != 12.0f) {
    std::printf("concord consumer: sum of ones is %g, not 12\n", s);
    return 1;
  }
  std::printf("concord consumer: solve and sum agree, %zu devices\n", devices().size());
  return 0;
}
