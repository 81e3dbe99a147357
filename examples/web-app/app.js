// The customers app: the demo solution's `customers` datasource in a list, its `update-customer`
// action behind an edit form, and what the client says about the network and its queue. Everything
// goes through restfn/client, served by the app's server at /restfn/client/.
import { createClient } from '/restfn/client/index.js';

const $ = (id) => document.getElementById(id);
const meta = (name) => document.querySelector(`meta[name="${name}"]`).content;

// The platform is another origin, which lists this app's (restfn serve --app-origin). Opening
// fails only when this device never reached the platform (SERVER_UNREACHABLE) or the token is
// refused (AUTH_REQUIRED): the app says why and stops there.
const client = await createClient({
  server: meta('restfn-server'),
  token: meta('restfn-token'),
  solution: 'demo',
}).catch((error) => {
  $('network').textContent = 'Not started';
  $('message').textContent = `${error.code}: ${error.message}`;
  $('message').hidden = false;
  throw error;
});

/** Online only when both the browser and the platform say so (the last request reached it). */
function showStatus(status = client.status) {
  const online = navigator.onLine && status.online;
  $('network').textContent = online ? 'Online' : 'Offline';
  $('network').className = `badge ${online ? 'online' : 'offline'}`;
  $('queue').textContent = `Queue: ${status.queued}`;
  $('queue').classList.toggle('waiting', status.queued > 0);
  if (online && $('message').dataset.offline === 'true') say('');
}

// While changes wait and the browser is online, the push is tried again, a little later each time:
// back online, the platform may still be out of reach for a moment (the network comes back in
// steps), and the client pushes by itself only on the browser's `online` event.
const FIRST_RETRY = 2000;
let retry;
let retryDelay = FIRST_RETRY;
function keepPushing(status) {
  if (!navigator.onLine || status.queued === 0) {
    clearTimeout(retry);
    retry = undefined;
    retryDelay = FIRST_RETRY;
    return;
  }
  if (retry) return;
  retry = setTimeout(() => {
    retry = undefined;
    retryDelay = Math.min(retryDelay * 2, 30_000);
    client.pushQueue().catch(failed);
  }, retryDelay);
}

function say(text, { offline = false } = {}) {
  $('message').textContent = text;
  $('message').hidden = !text;
  $('message').dataset.offline = String(offline);
}

/** A failure as the app shows it: restfn's stable code tells offline from the rest. */
function failed(error) {
  const offline = error.code === 'SERVER_UNREACHABLE' || error.code === 'NETWORK_ERROR';
  if (offline) say('The platform cannot be reached: showing this device’s copy.', { offline });
  else say(error.message);
}

async function sync() {
  try {
    await client.sync('customers');
    say('');
  } catch (error) {
    failed(error);
  }
}

function showCustomers(rows) {
  $('count').textContent = `(${rows.length})`;
  $('customers').replaceChildren(
    ...rows.map((customer) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.id = customer.id;
      button.setAttribute('aria-current', String(customer.id === $('edit').dataset.id));
      button.innerHTML = '<span class="name"></span><span class="region"></span>';
      button.querySelector('.name').textContent = customer.name;
      button.querySelector('.region').textContent = customer.region;
      button.addEventListener('click', () => edit(customer));
      item.append(button);
      return item;
    }),
  );
}

function edit(customer) {
  const form = $('edit');
  form.dataset.id = customer.id;
  $('edit-id').textContent = customer.id;
  $('edit-region').textContent = customer.region;
  $('name').value = customer.name;
  form.hidden = false;
  $('hint').hidden = true;
  for (const button of $('customers').querySelectorAll('button'))
    button.setAttribute('aria-current', String(button.dataset.id === customer.id));
  $('name').focus();
}

function closeForm() {
  $('edit').hidden = true;
  $('hint').hidden = false;
  delete $('edit').dataset.id;
  for (const button of $('customers').querySelectorAll('button[aria-current="true"]'))
    button.setAttribute('aria-current', 'false');
}

// Saving runs the action: the local row changes at once and the remote call is queued. Online, the
// queue is pushed right away; offline, the client pushes it when the browser is back online.
$('edit').addEventListener('submit', async (event) => {
  event.preventDefault();
  const id = $('edit').dataset.id;
  try {
    await client.action('update-customer', {
      current: { item: { id } },
      components: { name: { state: { value: $('name').value } } },
    });
    closeForm();
    say('');
    if (navigator.onLine) await client.pushQueue();
  } catch (error) {
    failed(error);
  }
});
$('cancel').addEventListener('click', closeForm);
$('sync').addEventListener('click', sync);

client.on('status', (status) => {
  showStatus(status);
  keepPushing(status);
});
addEventListener('online', () => showStatus());
addEventListener('offline', () => showStatus());
showStatus();

await sync();
// A live query: the list is drawn now and again whenever the customers table changes.
client.watch(
  "SELECT id, json_extract(data, '$.name') AS name, json_extract(data, '$.region') AS region FROM [customers] ORDER BY id",
  {},
  showCustomers,
);
