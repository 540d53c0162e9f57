-- Applies one batch of triplets to the knowledge graph of one tenant.
-- See the package documentation for the key layout and resolution rules.
--
-- KEYS[1]  the tenant's applied-triplet hash, kg:{t}:applied
-- ARGV[1]  the tenant's key prefix, kg:{t}:
-- ARGV[2]  the time written as first_seen on new nodes
-- ARGV[3]  NF, the number of fields per triplet; then NF fields per triplet:
--   +0 key (edge id)        +1 delivery token      +2 head mode (a|r|n)
--   +3 head id (a, n)       +4 head surface        +5 head type
--   +6 entry chunk (a)      +7 relation            +8 tail surface
--   +9 tail mode (|a|r|n)   +10 tail id (a, n)     +11 tail type
--   +12 chunk               +13 doc                +14 span start
--   +15 span end            +16 evidence           +17 method
--   +18 pattern             +19 confidence         +20 qualifiers JSON
--   +21 triplet id          +22 alias relation (1) +23 mention only (1)
-- Head mode a: person anchored to the entry chunk, id given; r: resolve
-- the surface to a person; n: typed node, id given. Tail mode likewise,
-- empty for no node.
--
-- Returns { events, names }: events is one string of lines "index TAB kind
-- TAB entity id TAB value", kind created|edge|chunk|alias, index the
-- triplet's position in the batch; names is one string of lines "entity id
-- TAB name TAB type" for every entity in events. One string each keeps the
-- reply cheap to build and to read; the surfaces in it are normalised and
-- hold no tab or newline.
--
-- Cost: redis.call is the unit of cost here, so what the batch would
-- repeat is remembered in Lua tables (known nodes, linked mentions) and the
-- index sets are written once per key at the end. Writes that later
-- triplets of the batch read (nodes, aliases, mentions) are made at once.
-- The applied records are written last: a script cut short leaves its
-- triplets unrecorded, and applying them again completes them.

local APPLIED = KEYS[1]
local P = ARGV[1]
-- The document store's prefix of the same tenant (doc:{t}:), read for the
-- retraction mark: the triplets of a retracted document are skipped.
local DOCP = 'doc:' .. string.sub(P, 4)
local now = ARGV[2]
local NF = tonumber(ARGV[3])

local events = {}
local changed, order = {}, {}
local names = {}   -- id -> { name, type } where known without a read
local known = {}   -- node ids known to exist
local linked = {}  -- id .. '\0' .. chunk known to be in mentions:<id>

-- Grouped writes, flushed at the end.
local outs, ins, rels = {}, {}, {}
local relSeen = {}
local edges = {}
local applied = {}
local done = {}    -- key -> applied record written earlier in this batch
local retracted = {} -- doc id -> true/false, read once per batch

-- isRetracted reports whether doc is marked retracted in the document
-- store (the mark is set before the retraction is published).
local function isRetracted(doc)
  if doc == '' then
    return false
  end
  local r = retracted[doc]
  if r == nil then
    r = redis.call('HEXISTS', DOCP .. doc, 'retracted') == 1
    retracted[doc] = r
  end
  return r
end

-- newSurface records a surface form new to the tenant in the surface log
-- the entity linker reads incrementally (kg:{t}:surfaces, scored by a
-- sequence).
local function newSurface(s)
  if redis.call('SADD', P .. 'aliases', s) == 1 then
    redis.call('ZADD', P .. 'surfaces', redis.call('INCR', P .. 'surfaces:seq'), s)
  end
end

local function emit(i, kind, id, v)
  events[#events + 1] = i .. '\t' .. kind .. '\t' .. id .. '\t' .. v
  if not changed[id] then
    changed[id] = true
    order[#order + 1] = id
  end
end

local function push(t, k, v)
  local l = t[k]
  if not l then
    l = {}
    t[k] = l
  end
  l[#l + 1] = v
end

local function put(f, k, v)
  if v ~= '' then
    f[#f + 1] = k
    f[#f + 1] = v
  end
end

-- ensure creates node id unless it exists; the nodes index is written
-- last so a script cut short leaves the node to be created again.
local function ensure(i, id, name, typ, entry, chunk, doc, token)
  names[id] = names[id] or { name, typ }
  if known[id] then
    return
  end
  known[id] = true
  if redis.call('SISMEMBER', P .. 'nodes', id) == 1 then
    return
  end
  local f = { 'name', name, 'type', typ, 'first_seen', now }
  put(f, 'first_chunk', chunk)
  put(f, 'first_doc', doc)
  put(f, 'entry_chunk', entry)
  put(f, 'created_by', token)
  redis.call('HSET', P .. 'node:' .. id, unpack(f))
  redis.call('SADD', P .. 'alias:' .. name, id)
  redis.call('SADD', P .. 'names:' .. id, name)
  newSurface(name)
  redis.call('SADD', P .. 'nodes', id)
  emit(i, 'created', id, '')
end

-- link adds chunk to the mentions of id and reports whether it was new.
local function link(i, id, chunk)
  local k = id .. '\0' .. chunk
  if linked[k] then
    return false
  end
  linked[k] = true
  if redis.call('SADD', P .. 'mentions:' .. id, chunk) == 1 then
    redis.call('SADD', P .. 'chunkents:' .. chunk, id)
    emit(i, 'chunk', id, chunk)
    return true
  end
  return false
end

-- resolve maps a person surface to an entity id, a resolution and, when
-- ambiguous, the sorted candidates. Alias sets change within a batch, so
-- they are read every time.
local function resolve(i, surface, chunk, doc, token)
  local own = 'person:' .. surface
  local c = {}
  for _, id in ipairs(redis.call('SMEMBERS', P .. 'alias:' .. surface)) do
    if id ~= own and string.sub(id, 1, 7) == 'person:' then
      c[#c + 1] = id
    end
  end
  if #c == 1 then
    return c[1], 'alias', nil
  end
  ensure(i, own, surface, 'person', '', chunk, doc, token)
  if #c == 0 then
    return own, 'new', nil
  end
  table.sort(c)
  return own, 'ambiguous', c
end

local function split(s)
  local out, from = {}, 1
  while true do
    local at = string.find(s, '\t', from, true)
    if not at then
      out[#out + 1] = string.sub(s, from)
      return out
    end
    out[#out + 1] = string.sub(s, from, at - 1)
    from = at + 1
  end
end

-- rereport reports again what triplet i changed when it was applied by the
-- same delivery, whose announcements may have been lost. rec is the applied
-- record: token, head id, tail id, edge id, and flags saying which mentions
-- (h, t) and alias (a) were new.
local function rereport(i, a, rec, token)
  local hid, tid, eid, flags = rec[2], rec[3], rec[4], rec[5] or ''
  local chunk = ARGV[a + 12]
  for k, id in ipairs({ hid, tid }) do
    if id ~= '' then
      if redis.call('HGET', P .. 'node:' .. id, 'created_by') == token then
        emit(i, 'created', id, '')
      end
      if string.find(flags, k == 1 and 'h' or 't', 1, true) then
        emit(i, 'chunk', id, chunk)
      end
      if eid ~= '' then
        emit(i, 'edge', id, eid)
      end
    end
  end
  if string.find(flags, 'a', 1, true) then
    emit(i, 'alias', hid, ARGV[a + 8])
  end
end

local function apply(i, a, key, token)
  local head, htype = ARGV[a + 4], ARGV[a + 5]
  local chunk, doc = ARGV[a + 12], ARGV[a + 13]

  local hid, hres, hcand
  if ARGV[a + 2] == 'r' then
    hid, hres, hcand = resolve(i, head, chunk, doc, token)
  else
    hid = ARGV[a + 3]
    hres = 'typed'
    if ARGV[a + 2] == 'a' then
      hres = 'entry'
    end
    ensure(i, hid, head, htype, ARGV[a + 6], chunk, doc, token)
  end
  local flags = ''
  if link(i, hid, chunk) then
    flags = 'h'
  end

  local tail, tmode = ARGV[a + 8], ARGV[a + 9]
  local tid, tres, tcand = '', '', nil
  if tmode == 'r' then
    tid, tres, tcand = resolve(i, tail, chunk, doc, token)
  elseif tmode == 'a' then
    tid = ARGV[a + 10]
    tres = 'entry'
    ensure(i, tid, tail, ARGV[a + 11], ARGV[a + 6], chunk, doc, token)
  elseif tmode == 'n' then
    tid = ARGV[a + 10]
    tres = 'typed'
    ensure(i, tid, tail, ARGV[a + 11], '', chunk, doc, token)
  end
  if tid ~= '' and link(i, tid, chunk) then
    flags = flags .. 't'
  end

  local eid = ''
  if ARGV[a + 23] ~= '1' then
    eid = key
    local rel = ARGV[a + 7]
    local f = { 'head', hid, 'head_name', head, 'relation', rel, 'chunk', chunk,
      'start', ARGV[a + 14], 'end', ARGV[a + 15], 'confidence', ARGV[a + 19],
      'resolution', hres }
    put(f, 'tail', tail)
    put(f, 'tail_id', tid)
    put(f, 'tail_resolution', tres)
    put(f, 'doc', doc)
    put(f, 'evidence', ARGV[a + 16])
    put(f, 'method', ARGV[a + 17])
    put(f, 'pattern', ARGV[a + 18])
    put(f, 'qualifiers', ARGV[a + 20])
    put(f, 'triplet', ARGV[a + 21])
    if hcand then
      put(f, 'candidates', cjson.encode(hcand))
    end
    if tcand then
      put(f, 'tail_candidates', cjson.encode(tcand))
    end
    redis.call('HSET', P .. 'edge:' .. eid, unpack(f))
    redis.call('SADD', P .. 'chunkedges:' .. chunk, eid)
    redis.call('SADD', P .. 'fact:' .. hid .. '|' .. rel .. '|' .. (tid ~= '' and tid or tail), eid)
    push(outs, hid, eid)
    if tid ~= '' then
      push(ins, tid, eid)
    end
    if htype == 'person' and not relSeen[rel .. '\0' .. hid] then
      relSeen[rel .. '\0' .. hid] = true
      push(rels, rel, hid)
    end
    if ARGV[a + 22] == '1' then
      redis.call('SADD', P .. 'names:' .. hid, tail)
      newSurface(tail)
      if redis.call('SADD', P .. 'alias:' .. tail, hid) == 1 then
        emit(i, 'alias', hid, tail)
        flags = flags .. 'a'
      end
    end
    edges[#edges + 1] = eid
    emit(i, 'edge', hid, eid)
    if tid ~= '' then
      emit(i, 'edge', tid, eid)
    end
  end
  local rec = token .. '\t' .. hid .. '\t' .. tid .. '\t' .. eid .. '\t' .. flags
  done[key] = rec
  applied[#applied + 1] = key
  applied[#applied + 1] = rec
end

local keys = {}
for a = 4, #ARGV, NF do
  keys[#keys + 1] = ARGV[a]
end
local prev = {}
if #keys > 0 then
  prev = redis.call('HMGET', APPLIED, unpack(keys))
end

for a = 4, #ARGV, NF do
  local i = (a - 4) / NF
  local key, token = ARGV[a], ARGV[a + 1]
  local rec = prev[i + 1] or done[key]
  if not rec and isRetracted(ARGV[a + 13]) then
    -- skipped: its document was retracted
  elseif rec then
    if token ~= '' then
      rec = split(rec)
      if rec[1] == token then
        rereport(i, a, rec, token)
      end
    end
  else
    apply(i, a, key, token)
  end
end

for id, l in pairs(outs) do
  redis.call('SADD', P .. 'out:' .. id, unpack(l))
end
for id, l in pairs(ins) do
  redis.call('SADD', P .. 'in:' .. id, unpack(l))
end
for rel, l in pairs(rels) do
  redis.call('SADD', P .. 'rel:' .. rel, unpack(l))
  redis.call('SADD', P .. 'rels', rel)
end
if #edges > 0 then
  redis.call('SADD', P .. 'edges', unpack(edges))
end
if #applied > 0 then
  redis.call('HSET', APPLIED, unpack(applied))
end

local out = {}
for _, id in ipairs(order) do
  local nt = names[id]
  if not nt then
    nt = redis.call('HMGET', P .. 'node:' .. id, 'name', 'type')
  end
  out[#out + 1] = id .. '\t' .. (nt[1] or '') .. '\t' .. (nt[2] or '')
end
return { table.concat(events, '\n'), table.concat(out, '\n') }
