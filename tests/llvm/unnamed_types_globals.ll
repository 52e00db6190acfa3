; Items: unnamed struct types (%0, %1) and unnamed globals (@0, @1), named as LLVM
; prints them (the numbers here are the printer's); integer constants wider than
; 64 bits in a gep and an initializer.
; No debug info: checks report the function name.
%0 = type { %1, ptr }
%1 = type { ptr, i32, ptr }

@0 = private global ptr null
@1 = internal global %0 { %1 { ptr @x, i32 1, ptr null }, ptr @0 }
@x = global i32 0
@y = global i32 0
@wide = global i128 170141183460469231731687303715884105727

declare void @MAYALIAS(ptr, ptr)

declare void @NOALIAS(ptr, ptr)

declare ptr @malloc(i64)

define i32 @main() {
  store ptr @y, ptr @0, align 8
  %p = load ptr, ptr @0, align 8
  call void @MAYALIAS(ptr %p, ptr @y)
  %f0 = getelementptr %0, ptr @1, i32 0, i32 0, i32 0
  %a = load ptr, ptr %f0, align 8
  call void @MAYALIAS(ptr %a, ptr @x)
  call void @NOALIAS(ptr %a, ptr @y)
  %f1 = getelementptr %0, ptr @1, i32 0, i32 1
  %b = load ptr, ptr %f1, align 8
  call void @MAYALIAS(ptr %b, ptr @0)
  %h = call ptr @malloc(i64 24)
  %h2 = getelementptr %1, ptr %h, i64 0, i32 2
  store ptr @x, ptr %h2, align 8
  %c = load ptr, ptr %h2, align 8
  call void @MAYALIAS(ptr %c, ptr @x)
  %big = getelementptr i8, ptr @1, i128 18446744073709551624
  %d = load ptr, ptr %big, align 8
  call void @MAYALIAS(ptr %d, ptr @0)
  ret i32 0
}
