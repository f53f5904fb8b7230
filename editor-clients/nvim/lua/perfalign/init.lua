-- perfalign for Neovim (0.10+): the perfalign language server for C and C++.
--
--   require("perfalign").setup{ model = "qwen2.5-coder-1.5b-perf", samples = 4 }
--
-- Commands: :PerfalignOptimize, :PerfalignParallelize, :PerfalignCancel, :PerfalignReport.
-- The verified suggestions appear as code actions (vim.lsp.buf.code_action()) on the function.
local config = require("perfalign.config")
local diff = require("perfalign.diff")

local M = {}

M.name = "perfalign"
M.state = {
  options = nil, ---@type table|nil
  settings = {}, ---@type table
  cmd = nil, ---@type string[]|nil
  crashes = {}, ---@type number[]
  finished = {}, ---@type table[] perfalign/jobFinished params, latest last
  progress = {}, ---@type table[] LspProgress values seen, for :PerfalignStatus and tests
}

local uv = vim.uv or vim.loop
local has_011 = vim.fn.has("nvim-0.11") == 1

-- Client methods are called with ":" from 0.11 on, with "." before.
local function request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_notify(client, method, params)
  if has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

-- A polite stop: shutdown, then exit (the server cancels its jobs and closes the store).
local function stop(client)
  if has_011 then
    return client:stop()
  end
  return client.stop()
end

local function notify(message, level)
  vim.schedule(function()
    vim.notify(message, level or vim.log.levels.INFO, { title = "perfalign" })
  end)
end

--- The perfalign client attached to a buffer (or any perfalign client).
function M.client(bufnr)
  local clients = vim.lsp.get_clients({ name = M.name, bufnr = bufnr })
  return clients[1]
end

local function on_job_finished(_, params)
  -- The server says what it found (window/showMessage); keep it for status() and tests.
  table.insert(M.state.finished, params)
end

local function on_exit(code, signal, client_id)
  if M.state.stopping or (code == 0 and signal == 0) then
    return
  end
  local now = uv.now()
  local recent = {}
  for _, t in ipairs(M.state.crashes) do
    if now - t < 180000 then
      table.insert(recent, t)
    end
  end
  table.insert(recent, now)
  M.state.crashes = recent
  local max = M.state.options.maxRestarts
  local log = vim.lsp.get_log_path()
  if #recent <= max then
    notify(("perfalign: the server stopped unexpectedly (exit %d); restarting it (%d of %d). Its messages are in %s.")
      :format(code, #recent, max, log), vim.log.levels.WARN)
    vim.schedule(function()
      M.restart_buffers(client_id)
    end)
  else
    notify(("perfalign: the server stopped %d times in 3 minutes and will not be restarted again. See %s for "
      .. "its last error, fix it (often: serverPath or the Python environment), then run :PerfalignRestart.")
      :format(#recent, log), vim.log.levels.ERROR)
  end
end

--- The configuration given to vim.lsp.config / vim.lsp.start.
function M.lsp_config()
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  capabilities.experimental = { perfalignShowDiff = true }
  return {
    name = M.name,
    cmd = vim.list_extend(vim.deepcopy(M.state.cmd), { "serve" }),
    filetypes = M.state.options.filetypes,
    root_markers = M.state.options.rootMarkers,
    settings = { perfalign = M.state.settings },
    init_options = { perfalign = M.state.settings },
    capabilities = capabilities,
    handlers = {
      ["perfalign/showDiff"] = function(_, params)
        vim.schedule(function()
          diff.show(params)
        end)
      end,
      ["perfalign/jobFinished"] = on_job_finished,
    },
    on_exit = on_exit,
  }
end

local function root_of(bufnr)
  local markers = M.state.options.rootMarkers
  if vim.fs.root then
    return vim.fs.root(bufnr, markers) or vim.fn.getcwd()
  end
  local found = vim.fs.find(markers, { upward = true, path = vim.fs.dirname(vim.api.nvim_buf_get_name(bufnr)) })[1]
  return found and vim.fs.dirname(found) or vim.fn.getcwd()
end

--- Start (or reuse) the server for one buffer: the 0.10 path, and the restart path on both.
function M.start_buffer(bufnr)
  local cfg = M.lsp_config()
  cfg.root_dir = root_of(bufnr)
  cfg.root_markers = nil
  cfg.filetypes = nil
  return vim.lsp.start(cfg, { bufnr = bufnr })
end

function M.restart_buffers(old_client_id)
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(M.state.options.filetypes, vim.bo[bufnr].filetype) then
      local attached = old_client_id and vim.lsp.buf_is_attached(bufnr, old_client_id)
      if attached or not M.client(bufnr) then
        M.start_buffer(bufnr)
      end
    end
  end
end

--- Send changed settings to the running server, without a restart.
function M.set(settings)
  local _, server = config.normalize(settings)
  M.state.settings = vim.tbl_extend("force", M.state.settings, server)
  for _, client in ipairs(vim.lsp.get_clients({ name = M.name })) do
    client.settings = { perfalign = M.state.settings }
    client_notify(client, "workspace/didChangeConfiguration", { settings = { perfalign = M.state.settings } })
  end
end

local function run_on_cursor(command, verb)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    notify(("perfalign: no perfalign server is attached to this buffer; open a C or C++ file to %s "
      .. "(see :checkhealth vim.lsp and :messages)."):format(verb), vim.log.levels.ERROR)
    return
  end
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  local args = { { uri = vim.uri_from_bufnr(bufnr), line = line } }
  request(client, "workspace/executeCommand", { command = command, arguments = args }, function(err, result)
    if err then
      notify("perfalign: " .. err.message, vim.log.levels.ERROR)
    elseif type(result) == "table" and result.status == "joined" then
      notify("perfalign: " .. (result.message or "already running"))
    end
    -- Refusals arrive as window/showMessage from the server, with the reason.
  end, bufnr)
end

function M.optimize()
  run_on_cursor("perfalign.optimize", "optimize a function")
end

function M.parallelize()
  run_on_cursor("perfalign.parallelize", "parallelize a function")
end

function M.cancel()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if client then
    request(client, "workspace/executeCommand",
      { command = "perfalign.cancel", arguments = { { uri = vim.uri_from_bufnr(bufnr) } } }, function(_, result)
        if type(result) == "table" and result.status == "nothing_running" then
          notify("perfalign: nothing is running in this buffer")
        end
      end, bufnr)
  end
end

--- :PerfalignReport: the preference store's statistics in a split, and its HTML report written beside.
function M.report()
  local db = M.state.settings.dbPath
  local function argv(...)
    local out = vim.list_extend(vim.deepcopy(M.state.cmd), { ... })
    if db and db ~= vim.NIL and db ~= "" then
      vim.list_extend(out, { "-d", vim.fn.expand(db) })
    end
    return out
  end
  local html = vim.fn.tempname() .. "-perfalign-report.html"
  local stats = vim.system(argv("prefs", "stats"), { text = true }):wait()
  local lines = {}
  if stats.code ~= 0 then
    table.insert(lines, "perfalign prefs stats failed: " .. vim.trim(stats.stderr or ""))
  else
    lines = vim.split(vim.trim(stats.stdout or ""), "\n", { plain = true })
  end
  local written = vim.system(argv("prefs", "report", "-o", html), { text = true }):wait()
  table.insert(lines, "")
  if written.code == 0 then
    table.insert(lines, "HTML report with plots: " .. html .. "  (open it with gx or :lua vim.ui.open(...))")
  else
    table.insert(lines, "HTML report failed: " .. vim.trim(written.stderr or ""))
  end
  vim.cmd("botright new")
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].modifiable = false
  pcall(vim.api.nvim_buf_set_name, buf, "perfalign://report")
  M.state.report_html = written.code == 0 and html or nil
  return lines
end

--- The kept profile's ranking (perfalign.report's "hotspots") as quickfix items, hottest first.
function M.hotspot_items(report)
  local hot = type(report) == "table" and report.hotspots or nil
  if type(hot) ~= "table" or type(hot.functions) ~= "table" then
    return {}, nil
  end
  local items = {}
  for _, f in ipairs(hot.functions) do
    local text = ("#%d %.1f%% (%.1f%% with callees) %s"):format(f.rank, f.self * 100, f.inclusive * 100, f["function"])
    if f.stale ~= nil and f.stale ~= vim.NIL then
      text = text .. " [stale: " .. f.stale .. "]"
    end
    table.insert(items, { filename = vim.uri_to_fname(f.uri), lnum = f.line + 1, col = 1, text = text,
      type = (f.stale ~= nil and f.stale ~= vim.NIL) and "W" or "I" })
  end
  local title = ("perfalign hotspots: `%s`, %s (%s)"):format(hot.command, hot.time, hot.profiler)
  if hot.binaryChanged ~= nil and hot.binaryChanged ~= vim.NIL then
    title = title .. " - " .. hot.binaryChanged
  end
  return items, title
end

--- :PerfalignHotspots: the hot functions of the last `perfalign hotspots` run in the quickfix list (:cc N jumps).
function M.hotspots()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr) or vim.lsp.get_clients({ name = M.name })[1]
  if not client then
    notify("perfalign: no perfalign server is running; open a C or C++ file of the project first", vim.log.levels.ERROR)
    return
  end
  request(client, "workspace/executeCommand", { command = "perfalign.report", arguments = {} }, function(err, report)
    if err then
      notify("perfalign: " .. err.message, vim.log.levels.ERROR)
      return
    end
    local items, title = M.hotspot_items(report)
    if not title then
      local problem = type(report) == "table" and type(report.hotspots) == "table" and report.hotspots.problem
      notify("perfalign: " .. (problem or "no profile in this workspace: run perfalign hotspots -- CMD ARGS"),
        vim.log.levels.WARN)
      return
    end
    vim.fn.setqflist({}, " ", { title = title, items = items })
    vim.cmd("botright copen")
    if #items > 0 then
      vim.cmd("cc 1")
    end
  end, bufnr)
end

function M.restart()
  M.state.crashes = {}
  M.state.stopping = true
  local buffers = {}
  for _, client in ipairs(vim.lsp.get_clients({ name = M.name })) do
    for bufnr in pairs(client.attached_buffers or {}) do
      buffers[bufnr] = true
    end
    stop(client)
  end
  -- Start again once the old processes are gone (at most 5 s), so no buffer keeps a dying client.
  local waited = 0
  local function again()
    if #vim.lsp.get_clients({ name = M.name }) > 0 and waited < 5000 then
      waited = waited + 100
      vim.defer_fn(again, 100)
      return
    end
    M.state.stopping = false
    for bufnr in pairs(buffers) do
      if vim.api.nvim_buf_is_loaded(bufnr) then
        M.start_buffer(bufnr)
      end
    end
    M.restart_buffers(nil)
    notify("perfalign: the server was restarted")
  end
  vim.defer_fn(again, 100)
end

local function on_progress(ev)
  local client = vim.lsp.get_client_by_id(ev.data.client_id)
  if not client or client.name ~= M.name then
    return
  end
  local value = ev.data.params.value
  table.insert(M.state.progress, value)
  M.state.title = value.kind == "begin" and value.title or M.state.title
  local parts = {}
  for _, part in ipairs({ M.state.title or "perfalign", value.message or "" }) do
    if part ~= "" then
      table.insert(parts, part)
    end
  end
  if value.percentage then
    table.insert(parts, value.percentage .. "%")
  end
  local text = table.concat(parts, ": ")
  M.state.running = value.kind ~= "end" and text or nil
  vim.cmd.redrawstatus()
  if value.kind == "end" then
    vim.api.nvim_echo({ { "" } }, false, {})
  else
    vim.api.nvim_echo({ { text .. "  (:PerfalignCancel to stop)" } }, false, {})
  end
end

--- For the statusline: the running job and its progress, or "" when idle.
---   vim.o.statusline = "%f %m%=%{v:lua.require'perfalign'.status()} %l,%c"
function M.status()
  return M.state.running or ""
end

local function commands()
  local cmd = vim.api.nvim_create_user_command
  cmd("PerfalignOptimize", M.optimize, { desc = "perfalign: optimize the function under the cursor" })
  cmd("PerfalignParallelize", M.parallelize, { desc = "perfalign: parallelize the function under the cursor with OpenMP" })
  cmd("PerfalignCancel", M.cancel, { desc = "perfalign: cancel the jobs running on this buffer" })
  cmd("PerfalignReport", M.report, { desc = "perfalign: what was suggested, accepted and rejected" })
  cmd("PerfalignHotspots", M.hotspots, { desc = "perfalign: the hottest functions of the last profile, in the quickfix list" })
  cmd("PerfalignRestart", M.restart, { desc = "perfalign: restart the language server" })
end

--- Configure perfalign and register its language server for C and C++ buffers.
---@param opts table|nil settings as in VS Code (model, backend, samples, dbPath, ...) and serverPath/pythonPath
function M.setup(opts)
  local options, settings, unknown = config.normalize(opts)
  if #unknown > 0 then
    notify("perfalign: unknown setup options ignored: " .. table.concat(unknown, ", ") .. "; known: "
      .. table.concat(config.server_keys, ", ") .. ", serverPath, pythonPath, filetypes, rootMarkers, maxRestarts, register",
      vim.log.levels.WARN)
  end
  M.state.options, M.state.settings = options, settings
  commands()
  local group = vim.api.nvim_create_augroup("perfalign", { clear = true })
  vim.api.nvim_create_autocmd("LspProgress", { group = group, callback = on_progress })
  local cmd, problem = config.perfalign_command(options)
  if not cmd then
    M.state.problem = problem
    notify(problem, vim.log.levels.ERROR)
    return false
  end
  M.state.cmd = cmd
  if options.register ~= "auto" and options.register ~= "start" then
    notify(('perfalign: register must be "auto" or "start", not %s; using "auto"'):format(vim.inspect(options.register)),
      vim.log.levels.WARN)
    options.register = "auto"
  end
  if has_011 and options.register == "auto" then
    vim.lsp.config(M.name, M.lsp_config())
    vim.lsp.enable(M.name)
  else
    vim.api.nvim_create_autocmd("FileType", {
      group = group,
      pattern = options.filetypes,
      callback = function(ev)
        M.start_buffer(ev.buf)
      end,
    })
  end
  -- Buffers opened before setup() get the server too.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(options.filetypes, vim.bo[bufnr].filetype)
      and not M.client(bufnr) then
      M.start_buffer(bufnr)
    end
  end
  return true
end

return M
