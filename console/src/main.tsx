import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import {
  CONSOLE_CONFIG_FILE,
  type ConsoleConfig,
} from '../../lambdas/scheduler-agent-supervisor/contracts/console';
import { App } from './App';
import { type ConsoleApi, ConsoleApiProvider, localConsoleApi } from './api';
import { deployedConsoleApi } from './deployed-api';
import { signIn, signOut } from './sign-in';
import './styles.css';

/** The page's config, next to it: the local backend's `{ mode: 'local' }` or the stack's, written at deploy. */
async function consoleApi(): Promise<ConsoleApi> {
  const response = await fetch(CONSOLE_CONFIG_FILE, { cache: 'no-store' });
  if (!response.ok) throw new Error(`${CONSOLE_CONFIG_FILE} answered ${response.status}`);
  const config = (await response.json()) as ConsoleConfig;
  if (config.mode === 'local') return localConsoleApi;
  const session = await signIn(config);
  return { ...deployedConsoleApi(config, session.credentials), signOut: () => signOut(config, session) };
}

const root = document.getElementById('root');
if (!root) throw new Error('The page has no #root element');
const view = createRoot(root);
consoleApi().then(
  (api) =>
    view.render(
      <StrictMode>
        <ConsoleApiProvider value={api}>
          <App />
        </ConsoleApiProvider>
      </StrictMode>,
    ),
  (error: Error) =>
    view.render(
      <p role="alert" className="error">
        The console cannot start: {error.message}
      </p>,
    ),
);
