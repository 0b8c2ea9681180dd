// Type promotion: the promote_types table and the priority rules
// (dimensioned tensors > 0-dim tensors > C++ numbers), checked against a table
// written out by hand from PyTorch's rules, and through the ops themselves.
#include <gtest/gtest.h>

#include "concord/concord.h"
#include "support/devices.h"

using namespace concord;

namespace {

// Row/column order: bool uint8 int8 int16 int32 int64 float16 bfloat16 float32 float64.
constexpr Dtype b = bool_, u8 = uint8, i8 = int8, i16 = int16, i32 = int32, i64 = int64, f16 = float16,
                bf = bfloat16, f32 = float32, f64 = float64;
constexpr Dtype kExpected[kNumDtypes][kNumDtypes] = {
    /* bool  */ {b, u8, i8, i16, i32, i64, f16, bf, f32, f64},
    /* uint8 */ {u8, u8, i16, i16, i32, i64, f16, bf, f32, f64},
    /* int8  */ {i8, i16, i8, i16, i32, i64, f16, bf, f32, f64},
    /* int16 */ {i16, i16, i16, i16, i32, i64, f16, bf, f32, f64},
    /* int32 */ {i32, i32, i32, i32, i32, i64, f16, bf, f32, f64},
    /* int64 */ {i64, i64, i64, i64, i64, i64, f16, bf, f32, f64},
    /* f16   */ {f16, f16, f16, f16, f16, f16, f16, f32, f32, f64},
    /* bf16  */ {bf, bf, bf, bf, bf, bf, f32, bf, f32, f64},
    /* f32   */ {f32, f32, f32, f32, f32, f32, f32, f32, f32, f64},
    /* f64   */ {f64, f64, f64, f64, f64, f64, f64, f64, f64, f64},
};

TEST(Promotion, PromoteTypesTable) {
  for (int i = 0; i < kNumDtypes; ++i)
    for (int j = 0; j < kNumDtypes; ++j)
      EXPECT_EQ(promote_types(kAllDtypes[i], kAllDtypes[j]), kExpected[i][j])
          << name(kAllDtypes[i]) << " with " << name(kAllDtypes[j]);
}

TEST(Promotion, TableIsSymmetric) {
  for (Dtype x : kAllDtypes)
    for (Dtype y : kAllDtypes) EXPECT_EQ(promote_types(x, y), promote_types(y, x)) << name(x) << " " << name(y);
}

// One operand set: (dtype, kind) with kind 'd' dimensioned tensor, 'z' 0-dim tensor, 's' number.
struct Opnd { Dtype t; char kind; };
Dtype result_of(std::initializer_list<Opnd> ops) {
  ResultTypeState st;
  for (const Opnd& o : ops) {
    if (o.kind == 's') st.add_scalar(o.t);
    else st.add_tensor(o.t, o.kind == 'z');
  }
  return st.result();
}

TEST(Promotion, PriorityRules) {
  // Numbers only matter when their category is higher, and then as the default dtype.
  EXPECT_EQ(result_of({{i32, 'd'}, {f64, 's'}}), f32);   // int32 tensor + 2.5
  EXPECT_EQ(result_of({{f16, 'd'}, {f64, 's'}}), f16);   // float16 tensor + 1.0
  EXPECT_EQ(result_of({{u8, 'd'}, {i64, 's'}}), u8);     // uint8 tensor + 1000
  EXPECT_EQ(result_of({{i8, 'd'}, {i64, 's'}}), i8);
  EXPECT_EQ(result_of({{b, 'd'}, {i64, 's'}}), i64);     // bool tensor + 1
  EXPECT_EQ(result_of({{b, 'd'}, {f64, 's'}}), f32);     // bool tensor + 1.5
  EXPECT_EQ(result_of({{b, 'd'}, {b, 's'}}), b);         // bool tensor + true
  EXPECT_EQ(result_of({{bf, 'd'}, {i64, 's'}}), bf);
  // Tensors of one priority promote normally.
  EXPECT_EQ(result_of({{i64, 'd'}, {f32, 'd'}}), f32);
  EXPECT_EQ(result_of({{f32, 'd'}, {f64, 'd'}}), f64);
  EXPECT_EQ(result_of({{u8, 'd'}, {i8, 'd'}}), i16);
  EXPECT_EQ(result_of({{b, 'd'}, {b, 'd'}}), b);
  // 0-dim tensors: ignored unless of a higher category, then their own dtype counts.
  EXPECT_EQ(result_of({{i32, 'd'}, {i64, 'z'}}), i32);
  EXPECT_EQ(result_of({{f32, 'd'}, {f64, 'z'}}), f32);
  EXPECT_EQ(result_of({{f16, 'd'}, {f64, 'z'}}), f16);
  EXPECT_EQ(result_of({{i32, 'd'}, {f64, 'z'}}), f64);
  EXPECT_EQ(result_of({{i32, 'd'}, {f16, 'z'}}), f16);
  EXPECT_EQ(result_of({{u8, 'd'}, {i8, 'z'}}), u8);
  EXPECT_EQ(result_of({{i32, 'd'}, {b, 'z'}}), i32);
  EXPECT_EQ(result_of({{b, 'd'}, {i8, 'z'}}), i8);
  // 0-dim tensors among themselves, and against numbers.
  EXPECT_EQ(result_of({{i32, 'z'}, {i64, 'z'}}), i64);
  EXPECT_EQ(result_of({{i64, 'z'}, {f64, 's'}}), f32);
  EXPECT_EQ(result_of({{f64, 'z'}, {f64, 's'}}), f64);
  EXPECT_EQ(result_of({{i8, 'z'}, {i64, 's'}}), i8);
  EXPECT_EQ(result_of({{b, 'z'}, {i64, 's'}}), i64);
  // Three levels at once.
  EXPECT_EQ(result_of({{i32, 'd'}, {f16, 'z'}, {f64, 's'}}), f16);
  EXPECT_EQ(result_of({{i32, 'd'}, {i64, 'z'}, {f64, 's'}}), f32);
  EXPECT_EQ(result_of({{b, 'd'}, {b, 'z'}, {i64, 's'}}), i64);
  // Numbers alone.
  EXPECT_EQ(result_of({{i64, 's'}}), i64);
  EXPECT_EQ(result_of({{f64, 's'}}), f32);
  EXPECT_EQ(result_of({{i64, 's'}, {f64, 's'}}), f32);
}

// The same rules through the ops, on every device.
class PromotionOps : public test::DeviceTest {};

TEST_P(PromotionOps, AddResultDtypes) {
  const Device& d = device();
  auto t = [&](Dtype dt) { return ones({3}, dt, d); };
  auto z = [&](Dtype dt) { return scalar_tensor(1, dt, d); };
  EXPECT_EQ(add(t(int32), 2.5).dtype(), float32);
  EXPECT_EQ(add(t(float16), 1.0).dtype(), float16);
  EXPECT_EQ(add(t(int64), t(float32)).dtype(), float32);
  EXPECT_EQ(add(t(uint8), t(int8)).dtype(), int16);
  EXPECT_EQ(add(t(bool_), t(bool_)).dtype(), bool_);
  EXPECT_EQ(add(t(bool_), 1).dtype(), int64);
  EXPECT_EQ(add(t(uint8), 1000).dtype(), uint8);
  EXPECT_EQ(add(t(int32), z(int64)).dtype(), int32);
  EXPECT_EQ(add(z(int32), t(float16)).dtype(), float16);
  EXPECT_EQ(add(z(int64), 2.5).dtype(), float32);
  EXPECT_EQ(add(2, t(int16)).dtype(), int16);
  EXPECT_EQ(mul(t(bfloat16), t(float16)).dtype(), float32);
  if (capabilities(d).can_store(float64)) {
    EXPECT_EQ(add(t(float32), t(float64)).dtype(), float64);
    EXPECT_EQ(add(t(int32), z(float64)).dtype(), float64);
    EXPECT_EQ(add(t(float32), z(float64)).dtype(), float32);
  }
  // Ops with their own result rules.
  EXPECT_EQ(div(t(int32), t(int32)).dtype(), float32);
  EXPECT_EQ(div(t(int64), 2).dtype(), float32);
  EXPECT_EQ(div(t(float16), 2).dtype(), float16);
  EXPECT_EQ(exp(t(int32)).dtype(), float32);
  EXPECT_EQ(sqrt(t(bool_)).dtype(), float32);
  EXPECT_EQ(exp(t(bfloat16)).dtype(), bfloat16);
  EXPECT_EQ(atan2(t(uint8), t(int8)).dtype(), float32);
  EXPECT_EQ(pow(t(int32), 2).dtype(), int32);
  EXPECT_EQ(pow(t(int32), 0.5).dtype(), float32);
  EXPECT_EQ(lt(t(int32), 2.5).dtype(), bool_);
  EXPECT_EQ(logical_and(t(int8), t(float16)).dtype(), bool_);
  EXPECT_EQ(neg(t(int8)).dtype(), int8);
  EXPECT_EQ(floor(t(int32)).dtype(), int32);
  EXPECT_EQ(isnan(t(float16)).dtype(), bool_);
  EXPECT_EQ(clamp(t(int32), 0.5, 2.0).dtype(), float32);
  EXPECT_EQ(clamp(t(float16), 0, 1).dtype(), float16);
  EXPECT_EQ(clamp(t(uint8), 0, std::nullopt).dtype(), uint8);
  const Tensor c = ones({3}, bool_, d);
  EXPECT_EQ(where(c, t(int32), 2.5).dtype(), float32);
  EXPECT_EQ(where(c, t(int8), t(uint8)).dtype(), int16);
  EXPECT_EQ(where(c, 1, 0).dtype(), int64);
  EXPECT_EQ(where(c, 1.0, 0).dtype(), float32);
}

CONCORD_INSTANTIATE_DEVICES(PromotionOps);

}  // namespace
