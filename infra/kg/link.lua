-- Writes the entity links of a batch of chunks for one tenant (the entity
-- linker's records; see link.go for the key layout).
-- node.lua is prepended: dropSurface and dropUnheldNode come from there.
--
-- ARGV[1]  the tenant's key prefix, kg:{t}:
-- then per chunk, 8 fields:
--   +0 chunk id   +1 doc id   +2 dictionary version (surface sequence the
--   chunk was matched against)   +3 delivery token   +4 mentions JSON ("" for
--   none)   +5 resolved entity ids, tab separated   +6 matched surfaces with
--   the number of person candidates seen, "surface TAB n" lines
--   +7 force ("1": write even when stale)
--
-- Returns one string per chunk: "r" (its document is retracted: nothing
-- written), "s" (stale: a person surface newer than the version occurs in
-- the chunk, or a matched surface's candidates changed; nothing written),
-- or "w TAB added ids (comma) TAB removed ids (comma)".
--
-- The staleness check is what makes linking order-independent across
-- replicas: a backfill scans the chunks recorded below a surface's
-- sequence, and a link written here either is recorded before that scan
-- (the scan sees it) or finds the surface already in the surface log (and
-- is refused, to be matched again with it).

local P = ARGV[1]
local DOCP = 'doc:' .. string.sub(P, 4)
local CHUNKP = 'chunk:' .. string.sub(P, 4)
local NF = 8

local function split(s, sep)
  local out = {}
  if s == '' then
    return out
  end
  local from = 1
  while true do
    local at = string.find(s, sep, from, true)
    if not at then
      out[#out + 1] = string.sub(s, from)
      return out
    end
    out[#out + 1] = string.sub(s, from, at - 1)
    from = at + 1
  end
end

-- persons counts the person ids of a surface's alias set, once per call:
-- a batch's chunks share most of their names.
local personsOf = {}
local function persons(surface)
  local n = personsOf[surface]
  if n then
    return n
  end
  n = 0
  for _, id in ipairs(redis.call('SMEMBERS', P .. 'alias:' .. surface)) do
    if string.sub(id, 1, 7) == 'person:' then
      n = n + 1
    end
  end
  personsOf[surface] = n
  return n
end

-- runes counts the characters of a UTF-8 string (bytes that do not
-- continue a sequence): one-character surfaces are never linked.
local function runes(s)
  local _, cont = string.gsub(s, '[\128-\191]', '')
  return string.len(s) - cont
end

-- newerPersons lists the surfaces of two characters or more logged after
-- a version that name a person, once per version and call: the rows of a
-- batch mostly share theirs.
local newerOf = {}
local function newerPersons(version)
  local l = newerOf[version]
  if l then
    return l
  end
  l = {}
  for _, s in ipairs(redis.call('ZRANGEBYSCORE', P .. 'surfaces', '(' .. version, '+inf')) do
    if runes(s) > 1 and persons(s) > 0 then
      l[#l + 1] = s
    end
  end
  newerOf[version] = l
  return l
end

local function stale(chunk, version, seen)
  for _, line in ipairs(split(seen, '\n')) do
    local f = split(line, '\t')
    if persons(f[1]) ~= tonumber(f[2]) then
      return true
    end
  end
  local newer = newerPersons(version)
  if #newer == 0 then
    return false
  end
  local text = redis.call('HGET', CHUNKP .. chunk, 'text') or ''
  for _, s in ipairs(newer) do
    if string.find(text, s, 1, true) then
      return true
    end
  end
  return false
end

local out = {}
for a = 2, #ARGV, NF do
  local chunk, doc, version = ARGV[a], ARGV[a + 1], ARGV[a + 2]
  local token, mentions = ARGV[a + 3], ARGV[a + 4]
  local ents, seen, force = split(ARGV[a + 5], '\t'), ARGV[a + 6], ARGV[a + 7] == '1'
  if doc ~= '' and redis.call('HEXISTS', DOCP .. doc, 'retracted') == 1 then
    out[#out + 1] = 'r'
  elseif not force and stale(chunk, version, seen) then
    out[#out + 1] = 's'
  else
    local rec = redis.call('HGET', P .. 'linkapplied', chunk)
    local want = {}
    for _, e in ipairs(ents) do
      want[e] = true
    end
    local added, removed = {}, {}
    for _, e in ipairs(redis.call('SMEMBERS', P .. 'chunklinked:' .. chunk)) do
      if not want[e] then
        redis.call('SREM', P .. 'chunklinked:' .. chunk, e)
        redis.call('SREM', P .. 'linked:' .. e, chunk)
        removed[#removed + 1] = e
        -- The retraction of e's document kept e while this link held it
        -- up (another document's chunk linked to it); with the link gone,
        -- e goes as the retraction would have removed it.
        dropUnheldNode(P, DOCP, e, '')
      end
    end
    for _, e in ipairs(ents) do
      if redis.call('SADD', P .. 'chunklinked:' .. chunk, e) == 1 then
        redis.call('SADD', P .. 'linked:' .. e, chunk)
        added[#added + 1] = e
      end
    end
    if mentions ~= '' then
      redis.call('SET', P .. 'chunklinks:' .. chunk, mentions)
    else
      redis.call('DEL', P .. 'chunklinks:' .. chunk)
    end
    -- A surface's counts over the corpus (surfstat) take this chunk's
    -- share again: what it gave before is taken back first. The lines
    -- last written for the chunk (chunksurf) say which surfaces changed:
    -- linked again, a chunk mostly matches what it matched before.
    local before = redis.call('GET', P .. 'chunksurf:' .. chunk)
    if before ~= seen then
      local was = {}
      for _, line in ipairs(split(before or '', '\n')) do
        local tab = string.find(line, '\t', 1, true)
        if tab then
          was[string.sub(line, 1, tab - 1)] = line
        end
      end
      for _, line in ipairs(split(seen, '\n')) do
        local f = split(line, '\t')
        if was[f[1]] ~= line then
          local now = split(f[3] or '', ',')
          local old = split(redis.call('HGET', P .. 'surfchunks:' .. f[1], chunk) or '', '\t')
          local prev = split(old[2] or '', ',')
          for k = 1, 8 do
            local d = (tonumber(now[k] or '0') or 0) - (tonumber(prev[k] or '0') or 0)
            if d ~= 0 then
              redis.call('HINCRBY', P .. 'surfstat', 'b' .. (k - 1) .. ':' .. f[1], d)
            end
          end
          redis.call('HSET', P .. 'surfchunks:' .. f[1], chunk, f[2] .. '\t' .. (f[3] or ''))
        end
      end
      if seen ~= '' then
        redis.call('SET', P .. 'chunksurf:' .. chunk, seen)
      else
        redis.call('DEL', P .. 'chunksurf:' .. chunk)
      end
    end
    local v = tonumber(version)
    local cur = tonumber(redis.call('ZSCORE', P .. 'linkver', chunk) or '-1')
    if v > cur then
      redis.call('ZADD', P .. 'linkver', v, chunk)
    end
    -- A redelivery of the delivery that made the change reports it again:
    -- the announcements of a stage that died before producing them.
    if #added == 0 and #removed == 0 and rec and token ~= '' then
      local r = split(rec, '\t')
      if r[1] == token then
        added, removed = split(r[2] or '', ','), split(r[3] or '', ',')
      end
    elseif #added > 0 or #removed > 0 then
      redis.call('HSET', P .. 'linkapplied', chunk,
        token .. '\t' .. table.concat(added, ',') .. '\t' .. table.concat(removed, ','))
    end
    out[#out + 1] = 'w\t' .. table.concat(added, ',') .. '\t' .. table.concat(removed, ',')
  end
end
return out
