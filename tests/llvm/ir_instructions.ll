; Items: freeze, bitcast/addrspacecast, insertvalue/extractvalue, va_arg (the instruction),
; cmpxchg and atomicrmw on ptr, vectors of pointers (insertelement/extractelement),
; select, constant expressions in operands. No debug info: checks report the function name.
@x = global i32 0
@y = global i32 0
@z = global i32 0
@cell = global ptr @x
@pair = global { ptr, ptr } { ptr @x, ptr @y }

declare void @MAYALIAS(ptr, ptr)
declare void @NOALIAS(ptr, ptr)
declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)

define ptr @vararg_first(i32 %n, ...) {
  %ap = alloca ptr
  call void @llvm.va_start.p0(ptr %ap)
  %v = va_arg ptr %ap, ptr
  call void @llvm.va_end.p0(ptr %ap)
  ret ptr %v
}

define i32 @main(i1 %c) {
  %f = freeze ptr @x
  call void @MAYALIAS(ptr %f, ptr @x)
  %as = addrspacecast ptr @y to ptr addrspace(1)
  %back = addrspacecast ptr addrspace(1) %as to ptr
  call void @MAYALIAS(ptr %back, ptr @y)
  call void @NOALIAS(ptr %back, ptr @x)
  %agg = insertvalue { ptr, i64 } poison, ptr @z, 0
  %out = extractvalue { ptr, i64 } %agg, 0
  call void @MAYALIAS(ptr %out, ptr @z)
  %va = call ptr (i32, ...) @vararg_first(i32 1, ptr @y)
  call void @MAYALIAS(ptr %va, ptr @y)
  call void @NOALIAS(ptr %va, ptr @z)
  %old = atomicrmw xchg ptr @cell, ptr @y seq_cst
  call void @MAYALIAS(ptr %old, ptr @x)
  %res = cmpxchg ptr @cell, ptr @y, ptr @z seq_cst seq_cst
  %prev = extractvalue { ptr, i1 } %res, 0
  call void @MAYALIAS(ptr %prev, ptr @z)
  %vec = insertelement <2 x ptr> poison, ptr @x, i32 0
  %elt = extractelement <2 x ptr> %vec, i32 0
  call void @MAYALIAS(ptr %elt, ptr @x)
  %s = select i1 %c, ptr @x, ptr getelementptr inbounds ({ ptr, ptr }, ptr @pair, i32 0, i32 1)
  %sv = load ptr, ptr %s
  call void @MAYALIAS(ptr %sv, ptr @y)
  %second = load ptr, ptr getelementptr inbounds ({ ptr, ptr }, ptr @pair, i32 0, i32 1)
  call void @NOALIAS(ptr %second, ptr @x)
  ret i32 0
}
