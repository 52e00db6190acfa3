local t = {}
for i = 1, 200000 do t[i] = (i * 7919) % 1000003 end
table.sort(t)
local s = 0
for i = 1, #t, 997 do s = s + t[i] end
print("sum", s, #t)
local words = {}
for w in string.gmatch(string.rep("alpha beta gamma delta epsilon ", 2000), "%a+") do words[w] = (words[w] or 0) + 1 end
local keys = {}
for k, v in pairs(words) do keys[#keys + 1] = k .. "=" .. v end
table.sort(keys); print(table.concat(keys, ","))
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print("fib", fib(27))
local co = coroutine.wrap(function() for i = 1, 5 do coroutine.yield(i * i) end end)
local acc = {}
for i = 1, 5 do acc[#acc + 1] = co() end
print("co", table.concat(acc, " "))
local mt = setmetatable({}, {__index = function(t, k) return k * 2 end, __call = function(self, x) return x + 1 end})
print("mt", mt[21], mt(41))
print(string.format("%q %5.2f %x %s", "a\nb", math.pi, 255, tostring(nil)))
local ok, err = pcall(function() error({code = 42}) end)
print("pcall", ok, type(err), err.code)
local big = {}
for i = 1, 50000 do big["k" .. i] = {i, tostring(i), {i}} end
collectgarbage(); local n = 0
for k, v in pairs(big) do n = n + v[1] + #v[2] + v[3][1] end
print("big", n, collectgarbage("count") > 0)
print(utf8.char(72, 228, 8364, 128512), utf8.len("häl€"))
print(string.pack and #string.pack("i4i8d", 1, 2, 3.0))
